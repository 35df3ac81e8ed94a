import Runtime
import Logging

Entrypoint.run("TokenVerifier") {}
