-- Stand-ins for the parts of Supabase that pgflow's schema and tests use and
-- PostgreSQL 15 from Debian lacks: Realtime's realtime.send() and its
-- messages table, pg_net's net.http_post() and its request and response
-- tables, and supabase_vault's vault.create_secret(), secrets table and
-- decrypted_secrets view (the secret kept in clear text).  Each has the
-- name, parameters and columns of the original that pgflow reads; none
-- calls a user function.  Loaded before pgflow's schema files by
-- bench/suites/pgflow.sh.
CREATE SCHEMA IF NOT EXISTS realtime;
CREATE TABLE realtime.messages (
    topic text NOT NULL,
    extension text NOT NULL,
    payload jsonb,
    event text,
    private boolean DEFAULT false,
    updated_at timestamp NOT NULL DEFAULT now(),
    inserted_at timestamp NOT NULL DEFAULT now(),
    id uuid NOT NULL DEFAULT gen_random_uuid()
);
CREATE FUNCTION realtime.send(payload jsonb, event text, topic text, private boolean DEFAULT true)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO realtime.messages (payload, event, topic, private, extension)
    VALUES (payload, event, topic, private, 'broadcast');
END;
$$;

CREATE SCHEMA IF NOT EXISTS net;
CREATE TABLE net.http_request_queue (
    id bigserial NOT NULL,
    method text NOT NULL,
    url text NOT NULL,
    headers jsonb NOT NULL,
    body bytea,
    timeout_milliseconds integer NOT NULL
);
CREATE TABLE net._http_response (
    id bigint,
    status_code integer,
    content_type text,
    headers jsonb,
    content text,
    timed_out boolean,
    error_msg text,
    created timestamptz NOT NULL DEFAULT now()
);
CREATE FUNCTION net.http_post(url text, body jsonb DEFAULT '{}'::jsonb, params jsonb DEFAULT '{}'::jsonb,
                              headers jsonb DEFAULT '{"Content-Type": "application/json"}'::jsonb,
                              timeout_milliseconds integer DEFAULT 5000)
RETURNS bigint LANGUAGE sql AS $$
    INSERT INTO net.http_request_queue (method, url, headers, body, timeout_milliseconds)
    VALUES ('POST', url, headers, convert_to(body::text, 'UTF8'), timeout_milliseconds)
    RETURNING id;
$$;

CREATE SCHEMA IF NOT EXISTS vault;
CREATE TABLE vault.secrets (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    name text UNIQUE,
    description text NOT NULL DEFAULT '',
    secret text NOT NULL,
    key_id uuid,
    nonce bytea,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE VIEW vault.decrypted_secrets AS
    SELECT id, name, description, secret, secret AS decrypted_secret, key_id, nonce, created_at, updated_at
      FROM vault.secrets;
CREATE FUNCTION vault.create_secret(new_secret text, new_name text DEFAULT NULL,
                                    new_description text DEFAULT '', new_key_id uuid DEFAULT NULL)
RETURNS uuid LANGUAGE sql AS $$
    INSERT INTO vault.secrets (secret, name, description, key_id)
    VALUES (new_secret, new_name, new_description, new_key_id)
    RETURNING id;
$$;
