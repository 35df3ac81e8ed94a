import Runtime
import Testing

@Suite("Durations for log lines")
struct DurationTests {
    @Test("milliseconds with one decimal, rounded down")
    func milliseconds() {
        #expect(Duration.zero.milliseconds == "0.0")
        #expect((Duration.milliseconds(12) + .microseconds(389)).milliseconds == "12.3")
        #expect(Duration.microseconds(50).milliseconds == "0.0")
        #expect(Duration.seconds(2).milliseconds == "2000.0")
    }
}
