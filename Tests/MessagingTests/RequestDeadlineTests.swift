@testable import Messaging
import Testing

@Suite("RequestDeadline: the caller's patience as a header")
struct RequestDeadlineTests {
    @Test("the header value is whole milliseconds, at least 1 and at most 120,000", arguments: [
        (Duration.milliseconds(1_500), "1500"), (.seconds(5), "5000"), (.microseconds(2_999), "2"),
        (.microseconds(10), "1"), (.zero, "1"), (.seconds(-3), "1"), (.seconds(120), "120000"), (.seconds(3_600), "120000"),
    ])
    func value(timeout: Duration, header: String) {
        #expect(RequestDeadline.value(timeout) == header)
    }

    @Test("a header gives the deadline counted from its receipt, capped at 120 s")
    func deadline() {
        let received = ContinuousClock.now
        #expect(RequestDeadline.from("1500", received: received) == received + .milliseconds(1_500))
        #expect(RequestDeadline.from("120000", received: received) == received + .seconds(120))
        #expect(RequestDeadline.from("999999", received: received) == received + .seconds(120))
        #expect(RequestDeadline.from(RequestDeadline.value(.milliseconds(2_345)), received: received) == received + .milliseconds(2_345))
    }

    @Test("a header that is absent or not 1 to 6 digits of a positive number gives no deadline",
          arguments: [String?.none, "", "0", "-5", "1.5", " 100", "1e3", "1000000", "abc"])
    func refused(header: String?) {
        #expect(RequestDeadline.from(header, received: .now) == nil)
    }
}
