import Foundation
import Logging
import Runtime
import Testing

@Suite("Structured logging")
struct LoggerTests {
    @Test("JSON lines carry level, logger, message and dotted metadata, escaped")
    func jsonLines() throws {
        let sink = LogSink.capturing()
        let logger = Logger(label: "gateway", level: .info, format: .json, metadata: ["service": "gw"], sink: sink)
        logger.info("said \"hi\"\n\u{1}\u{8}\\/é", ["request.id": "r-1\t"])
        logger.debug("dropped")
        let lines = sink.lines
        #expect(lines.count == 1)
        let object = try #require(JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: String])
        #expect(object["level"] == "info")
        #expect(object["logger"] == "gateway")
        #expect(object["message"] == "said \"hi\"\n\u{1}\u{8}\\/é")
        #expect(object["request.id"] == "r-1\t")
        #expect(object["service"] == "gw")
        #expect(object["time"] != nil)
    }

    @Test("LOG_LEVEL and LOG_FORMAT are read, and bad values name the variable")
    func fromEnvironment() throws {
        let logger = try Logger.fromEnvironment(label: "x", EnvironmentReader(["LOG_LEVEL": "debug", "LOG_FORMAT": "text"]))
        #expect(logger.level == .debug)
        #expect(logger.format == .text)
        #expect { try Logger.fromEnvironment(label: "x", EnvironmentReader(["LOG_LEVEL": "loud"])) } throws: {
            ($0 as? ConfigurationError)?.variable == "LOG_LEVEL"
        }
        #expect { try Logger.fromEnvironment(label: "x", EnvironmentReader(["LOG_FORMAT": "xml"])) } throws: {
            ($0 as? ConfigurationError)?.variable == "LOG_FORMAT"
        }
    }
}
