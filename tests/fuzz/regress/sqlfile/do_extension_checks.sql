CREATE EXTENSION pgcrypto;
DO $$
DECLARE
	pg_extension_installed BOOLEAN;
	n integer;
BEGIN
	SELECT count(*) = 1 AS pgcrypto_installed FROM pg_extension WHERE extname = 'pgcrypto' INTO pg_extension_installed;
	IF pg_extension_installed THEN
		EXECUTE 'CREATE FUNCTION a1() RETURNS int LANGUAGE sql AS $f$ SELECT 1 $f$';
	END IF;
	IF EXISTS (SELECT 1 FROM pg_catalog.pg_extension e WHERE e.extname = 'postgis') THEN
		EXECUTE 'CREATE FUNCTION a2() RETURNS int LANGUAGE sql AS $f$ SELECT 1 $f$';
	ELSE
		EXECUTE 'CREATE FUNCTION a3() RETURNS int LANGUAGE sql AS $f$ SELECT 1 $f$';
	END IF;
	PERFORM 1 FROM pg_extension WHERE extname = 'hstore';
	IF NOT FOUND THEN
		EXECUTE 'CREATE FUNCTION a4() RETURNS int LANGUAGE sql AS $f$ SELECT 1 $f$';
	END IF;
	SELECT extname INTO n FROM pg_extension WHERE extname = 'hstore';
	IF n IS NULL THEN
		EXECUTE 'CREATE FUNCTION a5() RETURNS int LANGUAGE sql AS $f$ SELECT 1 $f$';
	END IF;
	IF (SELECT count(*) FROM pg_extension WHERE extname = 'pgcrypto') > 0 THEN
		EXECUTE 'CREATE FUNCTION a6() RETURNS int LANGUAGE sql AS $f$ SELECT 1 $f$';
	ELSE
		EXECUTE 'CREATE FUNCTION a7() RETURNS int LANGUAGE sql AS $f$ SELECT 1 $f$';
	END IF;
END $$;
