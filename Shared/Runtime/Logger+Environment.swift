import Logging

extension Logger {
    /// A logger configured from `LOG_LEVEL` (default `info`) and `LOG_FORMAT` (default `json`).
    public static func fromEnvironment(label: String, _ environment: EnvironmentReader = EnvironmentReader()) throws(ConfigurationError) -> Logger {
        let levelName = environment.string("LOG_LEVEL", default: "info")
        guard let level = Logger.Level(name: levelName) else {
            throw ConfigurationError(variable: "LOG_LEVEL", problem: "'\(levelName)' is not one of \(Logger.Level.allCases.map(\.name).joined(separator: ", "))")
        }
        let formatName = try environment.choice("LOG_FORMAT", default: "json", from: ["json", "text"])
        return Logger(label: label, level: level, format: Logger.Format(rawValue: formatName)!)
    }
}
