#!/bin/sh
# The postgres container's first start (/docker-entrypoint-initdb.d; sourced by the image's
# entrypoint, so no `exit`): the services' roles and schemas from roles.sql, with the passwords of
# the member-database-password and issuer-database-password secrets. On a database made before
# this script existed, run the same with `docker-compose exec postgres sh /docker-entrypoint-initdb.d/10-roles.sh`.
psql -v ON_ERROR_STOP=1 -q --username "${POSTGRES_USER:-postgres}" --dbname "${POSTGRES_DB:-${POSTGRES_USER:-postgres}}" \
  -v member_password="$(cat /run/secrets/member-database-password)" \
  -v issuer_password="$(cat /run/secrets/issuer-database-password)" \
  -f /bootstrap/roles.sql >/dev/null
