import Runtime
import Logging

Entrypoint.run("TokenIssuer") {}
