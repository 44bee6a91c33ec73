CREATE FUNCTION public.ok() RETURNS text LANGUAGE sql AS $$ SELECT 'x' $$;
CREATE FUNCTION public.cont() RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  RETURN 'a' -- c
    -- d
    'b' || public.ok();
END
$$;
COMMENT ON FUNCTION public.ok() IS 'a' -- c
  'b';
