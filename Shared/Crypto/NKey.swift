/// A NATS user nkey: an Ed25519 key pair in NATS's text form (base32 of a type prefix, the key and
/// a CRC-16), as `nk -gen user` writes it. The seed (`SU…`) is the secret a client signs the
/// server's nonce with (cnats does the signing); the public key (`U…`) is what the server's
/// configuration lists.
public struct NKey: Sendable, Equatable {
    /// The seed in text form (`SU…`, 58 characters). Secret.
    public let seed: String
    /// The public key in text form (`U…`, 56 characters).
    public let publicKey: String

    /// A new user key from 32 random bytes.
    public static func generateUser() throws(CryptoError) -> NKey {
        try NKey(rawSeed: SecureRandom.bytes(32))
    }

    /// Reads a user seed (`SU…`); surrounding white space (a trailing newline) is ignored.
    /// Throws ``CryptoError/invalidKey`` for anything else: another key type, a bad checksum.
    public init(seed text: String) throws(CryptoError) {
        let trimmed = text.trimmingWhitespace()
        guard let bytes = Base32.decode(trimmed), bytes.count == 36,
              CRC16.xmodem(bytes[..<34]) == UInt16(bytes[34]) | UInt16(bytes[35]) << 8,
              bytes[0] == Self.seedPrefix | Self.userPrefix >> 5, bytes[1] == (Self.userPrefix & 31) << 3 else {
            throw CryptoError.invalidKey.with("not a NATS user nkey seed (SU…)")
        }
        try self.init(rawSeed: Array(bytes[2..<34]))
    }

    private init(rawSeed: [UInt8]) throws(CryptoError) {
        guard let raw = try PrivateKey.ed25519(seed: rawSeed).publicKey.ed25519Raw else {
            throw CryptoError.invalidKey.with("no Ed25519 public key")
        }
        seed = Self.encode([Self.seedPrefix | Self.userPrefix >> 5, (Self.userPrefix & 31) << 3] + rawSeed)
        publicKey = Self.encode([Self.userPrefix] + raw)
    }

    /// NATS's prefix bytes: `S` for seeds, `U` for users (nkeys' `PrefixByteSeed`, `PrefixByteUser`).
    private static let seedPrefix: UInt8 = 18 << 3
    private static let userPrefix: UInt8 = 20 << 3

    private static func encode(_ payload: [UInt8]) -> String {
        let crc = CRC16.xmodem(payload[...])
        return Base32.encode(payload + [UInt8(crc & 0xFF), UInt8(crc >> 8)])
    }
}

/// RFC 4648 base32, upper case, without padding (the nkey alphabet).
enum Base32 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)

    static func encode(_ bytes: [UInt8]) -> String {
        var output = [UInt8]()
        var buffer: UInt32 = 0
        var bits = 0
        for byte in bytes {
            buffer = buffer << 8 | UInt32(byte)
            bits += 8
            while bits >= 5 {
                bits -= 5
                output.append(alphabet[Int(buffer >> UInt32(bits) & 31)])
            }
        }
        if bits > 0 { output.append(alphabet[Int(buffer << UInt32(5 - bits) & 31)]) }
        return String(decoding: output, as: UTF8.self)
    }

    /// Nil for a character outside the alphabet or leftover bits that are not zero.
    static func decode(_ text: String) -> [UInt8]? {
        var output = [UInt8]()
        var buffer: UInt32 = 0
        var bits = 0
        for character in text.utf8 {
            guard let value = alphabet.firstIndex(of: character) else { return nil }
            buffer = buffer << 5 | UInt32(value)
            bits += 5
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(buffer >> UInt32(bits) & 0xFF))
            }
        }
        return bits < 5 && buffer & (1 << UInt32(bits) - 1) == 0 ? output : nil
    }
}

/// CRC-16/XMODEM (polynomial 0x1021, initial value 0), the checksum nkeys append.
enum CRC16 {
    static func xmodem(_ bytes: ArraySlice<UInt8>) -> UInt16 {
        var crc: UInt16 = 0
        for byte in bytes {
            crc ^= UInt16(byte) << 8
            for _ in 0..<8 {
                crc = crc & 0x8000 != 0 ? crc << 1 ^ 0x1021 : crc << 1
            }
        }
        return crc
    }
}

private extension String {
    func trimmingWhitespace() -> String {
        let bytes = Array(utf8)
        let isSpace = { (byte: UInt8) in byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(decoding: bytes[first...last], as: UTF8.self)
    }
}
