import Runtime
import Logging

Entrypoint.run("MemberService") {}
