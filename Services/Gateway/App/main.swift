import Runtime
import Logging

Entrypoint.run("Gateway") {}
