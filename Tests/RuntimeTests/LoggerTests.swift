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

    @Test("text lines quote a value with spaces, quotes, = or control characters (a message with control characters too), so it cannot end the line or pose as a field")
    func textLines() {
        let sink = LogSink.capturing()
        let logger = Logger(label: "verifier", level: .info, format: .text, sink: sink)
        logger.info("provider answered", ["plain": "abc-1", "error": "bad\nINFO forged=1", "empty": ""])
        let lines = sink.lines
        #expect(lines.count == 1 && lines[0].filter { $0 == "\n" }.count == 1, "\(lines)")
        #expect(lines.first?.hasSuffix(#"empty="" error="bad\nINFO forged=1" plain=abc-1"# + "\n") == true, "\(lines)")
        #expect(lines.first?.contains("[verifier] provider answered empty=") == true, "\(lines)")
        logger.info("two\nlines")
        #expect(sink.lines.last?.contains(#"[verifier] "two\nlines""#) == true, "\(sink.lines)")
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

    @Test("a request ID is taken only when it is 1 to 128 bytes of printable ASCII without spaces")
    func requestIDValidation() {
        for sane in ["abc-123", "a", String(repeating: "z", count: 128), "req_1:2/3+=~!"] {
            #expect(RequestID(validating: sane)?.value == sane)
        }
        for insane in ["", String(repeating: "z", count: 129), "a b", "line\nbreak", "tab\t", "caf\u{e9}", "del\u{7f}", "nul\u{0}"] {
            #expect(RequestID(validating: insane) == nil, "\(insane.debugDescription)")
        }
        let generated = RequestID.from("bad id")
        #expect(generated.value != "bad id" && generated.value.count == 36)
        #expect(RequestID.from(nil) != RequestID.from(nil))
        #expect(RequestID.from("ok-1").value == "ok-1")
    }

    @Test("a line written while a request is handled carries its ID; explicit metadata wins")
    func requestIDFromTask() async throws {
        let sink = LogSink.capturing()
        let logger = Logger(label: "svc", level: .info, format: .json, sink: sink)
        logger.info("outside")
        await RequestID.$current.withValue(RequestID(validating: "r-42")) {
            logger.info("inside")
            // A child task inherits the request's ID.
            await Task { logger.info("child") }.value
            logger.with(["request.id": "other"]).info("explicit")
        }
        let ids = try sink.lines.map { line in
            try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String])["request.id"]
        }
        #expect(ids == [nil, "r-42", "r-42", "other"])
    }
}
