/// A sign-in provider. The raw value is what is stored and sent over NATS; the HTTP API
/// accepts it in any case (`google`, `GOOGLE`).
public enum Provider: String, Codable, Sendable, CaseIterable, CustomStringConvertible {
    case google = "GOOGLE"
    case apple = "APPLE"
    case naver = "NAVER"
    case kakao = "KAKAO"

    /// Reads a provider name in any letter case.
    public init?(name: String) {
        self.init(rawValue: name.uppercased())
    }

    public var description: String { rawValue }
}
