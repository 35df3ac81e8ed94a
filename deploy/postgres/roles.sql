-- The database roles of SPEC section 9: member-service, token-issuer and admin-api each connect as
-- their own role, which owns its schema and has no right on the others' (the issuer's schema holds
-- the signing keys; the admin-api's, `audit`, the audit trail). Run by the bootstrap role (a superuser, or a role with CREATEROLE that owns the
-- database) against the service database, before the services start. The passwords go in on
-- standard input, not on the command line (where `ps` shows them):
--
--   { printf '\\set member_password %s\n\\set issuer_password %s\n\\set admin_password %s\n' \
--       "$(cat member.pw)" "$(cat issuer.pw)" "$(cat admin.pw)"
--     cat deploy/postgres/roles.sql; } | psql "$ADMIN_URL" -q -v ON_ERROR_STOP=1
--
-- (each password one word: `openssl rand -hex 24` makes such). Nothing here prints them, and an
-- error names the role, never the statement that held its password.
--
-- Idempotent: run it again to change the passwords. On a database that an earlier version ran
-- with one role, it hands the existing schemas and everything in them to their roles. The
-- services then migrate their own schemas (each as owner); nothing else needs more.
-- deploy/local/up, the compose init script (deploy/postgres/init-roles.sh) and the tests run
-- this same file. Statements are separated by blank lines (the tests run them one by one).
SET client_min_messages = warning;

SELECT 'the service roles' AS bootstrap
FROM (SELECT set_config('bootstrap.member_password', :'member_password', false),
             set_config('bootstrap.issuer_password', :'issuer_password', false),
             set_config('bootstrap.admin_password', :'admin_password', false)) AS passwords;

DO $bootstrap$
DECLARE
    grant_row record;
    object record;
BEGIN
    FOR grant_row IN
        SELECT * FROM (VALUES ('member_service', 'member', current_setting('bootstrap.member_password')),
                              ('token_issuer', 'issuer', current_setting('bootstrap.issuer_password')),
                              ('admin_api', 'audit', current_setting('bootstrap.admin_password')))
            AS t(role_name, schema_name, password)
    LOOP
        IF length(grant_row.password) < 16 THEN
            RAISE EXCEPTION 'the password of % must be at least 16 characters', grant_row.role_name;
        END IF;
        BEGIN
            IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = grant_row.role_name) THEN
                EXECUTE format('CREATE ROLE %I LOGIN PASSWORD %L', grant_row.role_name, grant_row.password);
            ELSE
                EXECUTE format('ALTER ROLE %I LOGIN PASSWORD %L', grant_row.role_name, grant_row.password);
            END IF;
        EXCEPTION WHEN OTHERS THEN
            -- Raised again without the failed statement, which held the password.
            RAISE EXCEPTION 'cannot create or set the password of role %: %', grant_row.role_name, SQLERRM;
        END;
        IF EXISTS (SELECT FROM pg_roles WHERE rolname = grant_row.role_name
                   AND (rolsuper OR rolcreatedb OR rolcreaterole OR rolbypassrls OR rolreplication)) THEN
            EXECUTE format('ALTER ROLE %I NOSUPERUSER NOCREATEDB NOCREATEROLE NOBYPASSRLS NOREPLICATION', grant_row.role_name);
        END IF;
        -- A bootstrap role that is not a superuser must be a member to hand the schema over.
        IF NOT (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN
            EXECUTE format('GRANT %I TO %I', grant_row.role_name, current_user);
        END IF;
        EXECUTE format('GRANT CONNECT ON DATABASE %I TO %I', current_database(), grant_row.role_name);
        EXECUTE format('CREATE SCHEMA IF NOT EXISTS %I AUTHORIZATION %I', grant_row.schema_name, grant_row.role_name);
        EXECUTE format('ALTER SCHEMA %I OWNER TO %I', grant_row.schema_name, grant_row.role_name);
        EXECUTE format('REVOKE ALL ON SCHEMA %I FROM PUBLIC', grant_row.schema_name);
        -- What a single-role deployment created there changes hands (sequences of identity
        -- columns follow their tables).
        FOR object IN
            SELECT c.relname, CASE c.relkind WHEN 'S' THEN 'SEQUENCE' WHEN 'v' THEN 'VIEW'
                                             WHEN 'm' THEN 'MATERIALIZED VIEW' ELSE 'TABLE' END AS kind
            FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = grant_row.schema_name AND c.relkind IN ('r', 'p', 'v', 'm', 'S')
              AND NOT EXISTS (SELECT FROM pg_depend d WHERE d.objid = c.oid AND d.deptype IN ('a', 'i'))
        LOOP
            EXECUTE format('ALTER %s %I.%I OWNER TO %I', object.kind, grant_row.schema_name, object.relname, grant_row.role_name);
        END LOOP;
        FOR object IN
            SELECT p.oid::regprocedure AS signature, CASE p.prokind WHEN 'p' THEN 'PROCEDURE' ELSE 'FUNCTION' END AS kind
            FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
            WHERE n.nspname = grant_row.schema_name
        LOOP
            EXECUTE format('ALTER %s %s OWNER TO %I', object.kind, object.signature, grant_row.role_name);
        END LOOP;
    END LOOP;
    -- No one else creates objects here: not in public, not new schemas, no temporary tables.
    REVOKE CREATE ON SCHEMA public FROM PUBLIC;
    EXECUTE format('REVOKE CREATE, TEMPORARY ON DATABASE %I FROM PUBLIC', current_database());
END
$bootstrap$;

SELECT 'done' AS bootstrap
FROM (SELECT set_config('bootstrap.member_password', '', false), set_config('bootstrap.issuer_password', '', false),
             set_config('bootstrap.admin_password', '', false)) AS cleared;
