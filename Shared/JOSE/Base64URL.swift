/// Base64url without padding (RFC 7515 §2), strict on input.
public enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// 0xFF marks a byte outside the base64url alphabet.
    private static let reverse: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, character) in alphabet.enumerated() { table[Int(character)] = UInt8(index) }
        return table
    }()

    /// Encodes `bytes` as base64url with no `=` padding.
    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        let input = Array(bytes)
        var output = [UInt8]()
        output.reserveCapacity((input.count * 4 + 2) / 3)
        var index = 0
        while index + 3 <= input.count {
            let chunk = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
            output.append(alphabet[Int(chunk >> 18 & 63)])
            output.append(alphabet[Int(chunk >> 12 & 63)])
            output.append(alphabet[Int(chunk >> 6 & 63)])
            output.append(alphabet[Int(chunk & 63)])
            index += 3
        }
        switch input.count - index {
        case 1:
            let chunk = UInt32(input[index]) << 16
            output.append(alphabet[Int(chunk >> 18 & 63)])
            output.append(alphabet[Int(chunk >> 12 & 63)])
        case 2:
            let chunk = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8
            output.append(alphabet[Int(chunk >> 18 & 63)])
            output.append(alphabet[Int(chunk >> 12 & 63)])
            output.append(alphabet[Int(chunk >> 6 & 63)])
        default:
            break
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Decodes strict base64url: only `A–Z a–z 0–9 - _`, no padding or whitespace, a possible length,
    /// and zero bits after the last full byte. Returns nil otherwise.
    public static func decode(_ string: some StringProtocol) -> [UInt8]? {
        var string = String(string)
        return string.withUTF8 { decode(utf8: $0) }
    }

    /// Decodes a key as operators write one: base64 (`openssl rand -base64 32`) or base64url, padded or not
    /// (one alphabet, then the strict rules of `decode(_:)`); nil for anything else.
    public static func decodeKey(_ string: some StringProtocol) -> [UInt8]? {
        var urlAlphabet = String(string.map { $0 == "+" ? "-" : $0 == "/" ? "_" : $0 })
        while urlAlphabet.hasSuffix("=") { urlAlphabet.removeLast() }
        return decode(urlAlphabet)
    }

    /// The same rules as `decode(_:)`, on the UTF-8 bytes of a string.
    static func decode(utf8 input: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        let remainder = input.count % 4
        guard remainder != 1 else { return nil }
        var output = [UInt8]()
        output.reserveCapacity(input.count / 4 * 3 + 2)
        var index = 0
        let fullEnd = input.count - remainder
        while index < fullEnd {
            let a = reverse[Int(input[index])], b = reverse[Int(input[index + 1])]
            let c = reverse[Int(input[index + 2])], d = reverse[Int(input[index + 3])]
            guard (a | b | c | d) & 0xC0 == 0 else { return nil }
            let chunk = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6 | UInt32(d)
            output.append(UInt8(truncatingIfNeeded: chunk >> 16))
            output.append(UInt8(truncatingIfNeeded: chunk >> 8))
            output.append(UInt8(truncatingIfNeeded: chunk))
            index += 4
        }
        switch remainder {
        case 2:
            let a = reverse[Int(input[index])], b = reverse[Int(input[index + 1])]
            guard (a | b) & 0xC0 == 0, b & 0x0F == 0 else { return nil }
            output.append(a << 2 | b >> 4)
        case 3:
            let a = reverse[Int(input[index])], b = reverse[Int(input[index + 1])], c = reverse[Int(input[index + 2])]
            guard (a | b | c) & 0xC0 == 0, c & 0x03 == 0 else { return nil }
            output.append(a << 2 | b >> 4)
            output.append(b << 4 | c >> 2)
        default:
            break
        }
        return output
    }
}
