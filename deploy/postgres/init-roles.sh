#!/bin/sh
# The postgres container's first start (/docker-entrypoint-initdb.d; the image's entrypoint runs
# it, or sources it where it is not executable, so no `exit`): the services' roles and schemas
# from roles.sql, with the passwords of the member-database-password, issuer-database-password and
# admin-database-password secrets. On a database made before this script existed, run the same by hand:
#   docker-compose exec postgres sh /docker-entrypoint-initdb.d/10-roles.sh
# The passwords go in on standard input, never on a command line (roles.sql says how).
{
  printf '\\set member_password %s\n' "$(cat /run/secrets/member-database-password)"
  printf '\\set issuer_password %s\n' "$(cat /run/secrets/issuer-database-password)"
  printf '\\set admin_password %s\n' "$(cat /run/secrets/admin-database-password)"
  cat /bootstrap/roles.sql
} | psql -v ON_ERROR_STOP=1 -q --username "${POSTGRES_USER:-postgres}" --dbname "${POSTGRES_DB:-${POSTGRES_USER:-postgres}}" >/dev/null
