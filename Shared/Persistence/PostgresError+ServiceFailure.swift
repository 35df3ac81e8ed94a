import Contracts
import Postgres

/// A database that cannot be reached is a 503 with `Retry-After`; any other database error
/// is an internal failure whose details stay in the logs.
extension PostgresError: ServiceFailureConvertible {
    public var serviceFailure: ServiceFailure {
        isUnavailable ? .unavailable : .internal
    }
}
