import Crypto
import Foundation
import JOSE

/// Where the use cases get the refresh token keys in force: the files' keys, read again as they change
/// (`RefreshTokenKeyring`), or one fixed set (``RefreshTokenKeys`` itself).
protocol RefreshTokenKeyProvider: Sendable {
    /// The keys now.
    var current: RefreshTokenKeys { get }
}

extension RefreshTokenKeys: RefreshTokenKeyProvider {
    var current: RefreshTokenKeys { self }
}

/// The keys refresh tokens are MACed with (`REFRESH_TOKEN_KEY_FILE`): every key verifies, the last one signs.
/// Rotation (docs/key-rotation.md) adds the new key before the last on every replica, then makes it the last.
struct RefreshTokenKeys: Sendable, Equatable {
    /// The shortest key taken: a MAC key of fewer bytes than its hash's output weakens it.
    static let minimumKeyBytes = 32
    /// The length of a session's secret.
    static let secretBytes = 16
    /// The length of a generation's tag.
    static let tagBytes = 16
    /// The longest token of this form: a session ID, 19 digits of generation, the tag and the MAC, with their dots.
    static let maximumLength = 36 + 1 + 19 + 1 + 22 + 1 + 43
    private static let macLabel = Array("social-login refresh token v2".utf8) + [0]
    private static let loginLabel = Array("social-login login session v1".utf8) + [0]

    private let keys: [[UInt8]]

    /// `keys` in order, the last signing; nil when there is none or one is shorter than ``minimumKeyBytes``.
    init?(_ keys: [[UInt8]]) {
        guard !keys.isEmpty, keys.allSatisfy({ $0.count >= Self.minimumKeyBytes }) else { return nil }
        self.keys = keys
    }

    private var signing: [UInt8] { keys[keys.count - 1] }

    /// How many keys there are (never what they are).
    var count: Int { keys.count }

    /// These keys, with those of `other` that are not among them put first: they check tokens and make none.
    func keeping(_ other: RefreshTokenKeys) -> RefreshTokenKeys {
        let missing = other.keys.filter { key in !keys.contains { constantTimeEquals($0, key) } }
        return RefreshTokenKeys(keys: missing + keys)
    }

    private init(keys: [[UInt8]]) {
        self.keys = keys
    }

    /// The token of the session's `generation`, under the signing key.
    func token(sessionId: UUID, tag: [UInt8], generation: Int64) -> RefreshToken {
        let mac = HMAC.sha256(key: signing, message: Self.message(sessionId, generation, tag))
        return RefreshToken(sessionId: sessionId, generation: generation, tag: tag,
                            value: "\(sessionId.uuidString.lowercased()).\(generation).\(Base64URL.encode(tag)).\(Base64URL.encode(mac))")
    }

    /// The tag of a session's `generation`: the first ``tagBytes`` bytes of SHA-256 over its secret and the
    /// generation (8 bytes, big-endian), as `issuer.token_tag` makes it.
    static func tag(secret: [UInt8], generation: Int64) -> [UInt8] {
        var message = secret
        withUnsafeBytes(of: UInt64(bitPattern: generation).bigEndian) { message.append(contentsOf: $0) }
        return Array(Digest.sha256(message).prefix(tagBytes))
    }

    /// The token `value` names, when it is one (lowercase session ID, generation in decimal without leading zeros,
    /// 22 characters of tag, 43 of MAC) and its MAC is right under one of the keys; a token of the releases
    /// before as it reads (its hash is looked up); nil otherwise: no such token, and nothing to look up.
    func read(_ value: String) -> PresentedRefreshToken? {
        guard value.utf8.contains(UInt8(ascii: ".")) else { return LegacyRefreshToken(value).map { .legacy($0) } }
        // Longer is no token: nothing is split or decoded.
        guard value.utf8.count <= Self.maximumLength else { return nil }
        let parts = value.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0].count == 36, parts[2].count == 22, parts[3].count == 43,
              (1...19).contains(parts[1].count), parts[1].allSatisfy({ (0x30...0x39).contains($0) }),
              parts[1].first != UInt8(ascii: "0") || parts[1].count == 1,
              let text = String(parts[0]), let sessionId = UUID(uuidString: text), text == sessionId.uuidString.lowercased(),
              let digits = String(parts[1]), let generation = Int64(digits),
              let tag = Self.exactBase64URL(parts[2], count: Self.tagBytes),
              let mac = Self.exactBase64URL(parts[3], count: 32)
        else { return nil }
        let message = Self.message(sessionId, generation, tag)
        // Every key is tried, whichever matches: the time taken does not tell which.
        var matched = false
        for key in keys where constantTimeEquals(HMAC.sha256(key: key, message: message), mac) { matched = true }
        return matched ? .current(RefreshToken(sessionId: sessionId, generation: generation, tag: tag, value: value)) : nil
    }

    /// The `count` bytes `text` encodes in base64url, in its one canonical form; nil otherwise.
    private static func exactBase64URL(_ text: Substring.UTF8View, count: Int) -> [UInt8]? {
        guard let string = String(text), let bytes = Base64URL.decode(string), bytes.count == count,
              Base64URL.encode(bytes) == string else { return nil }
        return bytes
    }

    /// The session a login's attempts start (a SHA-256 of `attemptKey`, the member and the device): every attempt of
    /// one login names the same on every replica, whichever key each signs with (a key rotation's step reaches them
    /// some seconds apart), so the session is that login's, whichever attempt came first. A UUID of version 8
    /// (RFC 9562). No key is needed: a session's ID is no secret (its access tokens carry it), and it makes no token,
    /// for the session's secret is random (`issuer.new_token_secret`, made in the database).
    static func session(ofLogin attemptKey: String, memberId: Int64, deviceId: String) -> UUID {
        let login = Array(attemptKey.utf8) + [0] + Array(String(memberId).utf8) + [0] + Array(deviceId.utf8)
        var bytes = Array(Digest.sha256(loginLabel + login).prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x80
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                           bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }

    private static func message(_ sessionId: UUID, _ generation: Int64, _ tag: [UInt8]) -> [UInt8] {
        var message = macLabel
        withUnsafeBytes(of: sessionId.uuid) { message.append(contentsOf: $0) }
        withUnsafeBytes(of: UInt64(bitPattern: generation).bigEndian) { message.append(contentsOf: $0) }
        return message + tag
    }
}
