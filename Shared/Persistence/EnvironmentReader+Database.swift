import Postgres
import Runtime

extension EnvironmentReader {
    /// `DATABASE_URL`, or `defaultValue` when unset: a URL that `PostgresConfiguration` takes, checked at
    /// start so that a bad one stops the service naming the variable, before it connects to anything.
    public func databaseURL(default defaultValue: String) throws(ConfigurationError) -> String {
        let url = string("DATABASE_URL", default: defaultValue)
        do {
            _ = try PostgresConfiguration(url: url)
        } catch {
            // The error names what is wrong without repeating the password.
            throw ConfigurationError(variable: "DATABASE_URL", problem: String(describing: error))
        }
        return url
    }
}
