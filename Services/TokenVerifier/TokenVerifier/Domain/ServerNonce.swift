import Contracts
import Crypto
import JOSE

/// Server nonces (`POST /api/auth/nonce`): opaque, good for one login or link from the device they were
/// issued to, for ``lifetime`` seconds. Stateless: a nonce is 16 random bytes, its expiry and a MAC over
/// both and the device ID, so issuing one costs no memory and no database write; the member-service records
/// each one used (``UsedNonce``), so it is good once.
///
/// Text: `n1.` and the base64url of random (16) ‖ expiry (8, big-endian seconds) ‖ HMAC-SHA256 (first 16
/// bytes) of `"social-login nonce" 0 deviceId 0 random ‖ expiry`.
struct ServerNonce: Sendable {
    /// How long a nonce is good for, in seconds.
    static let lifetime: Int64 = 600
    /// How far a replica's clock may run ahead of another's: an expiry further away than the lifetime and this
    /// was not made by a replica with a sane clock, and would be kept that long once used.
    static let clockAllowance: Int64 = 600
    private static let prefix = IssuedNonce.prefix
    private static let bodyLength = 24
    private static let tagLength = 16

    /// What a nonce sent back came to.
    enum Check: Equatable {
        /// Genuine, the device's, unexpired.
        case valid(UsedNonce)
        /// Not one this key made, or made for another device.
        case unknown
        /// Expired.
        case expired
    }

    private let key: [UInt8]

    /// Nonces under `key` (32 bytes), which every verifier replica shares.
    init(key: [UInt8]) {
        self.key = key
    }

    /// The nonces of the replicas that share `providerTokenKey` (`PROVIDER_TOKEN_KEY`): a key of their own,
    /// derived from it, so one secret fewer to distribute.
    static func derived(from providerTokenKey: [UInt8]) -> ServerNonce {
        ServerNonce(key: HMAC.sha256(key: providerTokenKey, message: Array("social-login server nonce key v1".utf8)))
    }

    /// A new nonce for `deviceId`, issued at `now` (seconds since 1970).
    func issue(deviceId: String, now: Int64) -> String {
        var body = SecureRandom.bytes(16)
        let expiry = now + Self.lifetime
        for shift in stride(from: 56, through: 0, by: -8) { body.append(UInt8(truncatingIfNeeded: expiry >> shift)) }
        return Self.prefix + Base64URL.encode(body + tag(body, deviceId: deviceId))
    }

    /// Whether `text` is a nonce this key issued for `deviceId` that has not expired by `now`.
    func check(_ text: String, deviceId: String, now: Int64) -> Check {
        guard text.utf8.count < 100, text.hasPrefix(Self.prefix), let bytes = Base64URL.decode(text.dropFirst(Self.prefix.count)),
              bytes.count == Self.bodyLength + Self.tagLength else { return .unknown }
        let body = Array(bytes[..<Self.bodyLength])
        guard constantTimeEquals(Array(bytes[Self.bodyLength...]), tag(body, deviceId: deviceId)) else { return .unknown }
        let expiry = body[16...].reduce(Int64(0)) { $0 << 8 | Int64($1) }
        guard expiry > now else { return .expired }
        guard expiry - now <= Self.lifetime + Self.clockAllowance else { return .unknown }
        return .valid(UsedNonce(id: Base64URL.encode(body[..<16]), expiresAt: expiry))
    }

    private func tag(_ body: [UInt8], deviceId: String) -> [UInt8] {
        let message = Array("social-login nonce".utf8) + [0] + Array(deviceId.utf8) + [0] + body
        return Array(HMAC.sha256(key: key, message: message).prefix(Self.tagLength))
    }
}
