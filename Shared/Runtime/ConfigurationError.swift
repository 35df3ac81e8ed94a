/// A configuration value that cannot be used; the service stops at start with this message.
public struct ConfigurationError: Error, CustomStringConvertible, Sendable {
    /// The environment variable at fault.
    public let variable: String
    /// What is wrong with it, in words an operator can act on.
    public let problem: String

    /// Creates an error for `variable`.
    public init(variable: String, problem: String) {
        self.variable = variable
        self.problem = problem
    }

    public var description: String { "\(variable): \(problem)" }
}
