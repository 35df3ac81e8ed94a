import Runtime
import Logging

Entrypoint.run("DevIDP") {}
