import Runtime
import Testing

@Suite("Durations for log lines")
struct DurationTests {
    @Test("milliseconds with one decimal, truncated toward zero, with the sign")
    func milliseconds() {
        #expect(Duration.zero.millisecondsText == "0.0")
        #expect((Duration.milliseconds(12) + .microseconds(389)).millisecondsText == "12.3")
        #expect(Duration.microseconds(50).millisecondsText == "0.0")
        #expect(Duration.seconds(2).millisecondsText == "2000.0")
        #expect(Duration.microseconds(-500).millisecondsText == "-0.5")
        #expect(Duration.milliseconds(-1_250).millisecondsText == "-1250.0")
    }
}
