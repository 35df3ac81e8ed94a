import Crypto
import Foundation

/// The Standard Webhooks signature (standardwebhooks.com): `v1,` and the base64 of the HMAC-SHA256, keyed
/// with the secret's key, of `<webhook-id>.<webhook-timestamp>.<body>`. The relay signs with it; the dev
/// receiver and the tests verify with it, as any receiver's library does.
public enum WebhookSignature {
    /// The headers a signed delivery carries.
    public enum Header {
        public static let id = "webhook-id"
        public static let timestamp = "webhook-timestamp"
        public static let signature = "webhook-signature"
    }

    /// The `webhook-signature` value of `body` sent as `id` at `timestamp` (Unix seconds).
    public static func sign(id: String, timestamp: Int64, body: [UInt8], secret: WebhookSecret) -> String {
        "v1," + Data(mac(id: id, timestamp: timestamp, body: body, secret: secret)).base64EncodedString()
    }

    /// Whether `signatures` (the header: space-separated `v1,<base64>` entries, as a receiver gets them while a
    /// secret is rotated) holds one that matches, and `timestamp` is within `tolerance` of `now`.
    public static func verify(id: String, timestamp: String, signatures: String, body: [UInt8], secret: WebhookSecret,
                              now: Date = Date(), tolerance: TimeInterval = 300) -> Bool {
        guard let seconds = Int64(timestamp), abs(now.timeIntervalSince1970 - Double(seconds)) <= tolerance else { return false }
        let expected = mac(id: id, timestamp: seconds, body: body, secret: secret)
        return signatures.split(separator: " ").contains { entry in
            guard entry.hasPrefix("v1,"), let given = Data(base64Encoded: String(entry.dropFirst(3))) else { return false }
            return constantTimeEquals(Array(given), expected)
        }
    }

    private static func mac(id: String, timestamp: Int64, body: [UInt8], secret: WebhookSecret) -> [UInt8] {
        var message = Array("\(id).\(timestamp).".utf8)
        message.append(contentsOf: body)
        return HMAC.sha256(key: secret.key, message: message)
    }
}
