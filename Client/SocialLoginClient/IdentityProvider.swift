/// A sign-in provider as the API names it (`GOOGLE`, `APPLE`, `NAVER`, `KAKAO`). An open set:
/// a provider a newer server adds decodes as itself.
public struct IdentityProvider: RawRepresentable, Codable, Hashable, Sendable, CustomStringConvertible {
    /// The upper-case name, as in `MemberProfile.identities[].provider`.
    public let rawValue: String

    /// Wraps a provider name in any letter case.
    public init(rawValue: String) { self.rawValue = rawValue.uppercased() }

    /// Google Sign-In.
    public static let google = IdentityProvider(rawValue: "GOOGLE")
    /// Sign in with Apple.
    public static let apple = IdentityProvider(rawValue: "APPLE")
    /// Naver Login.
    public static let naver = IdentityProvider(rawValue: "NAVER")
    /// Kakao Login (OpenID Connect).
    public static let kakao = IdentityProvider(rawValue: "KAKAO")

    /// The lower-case name used in paths (`/api/auth/google-login`).
    var pathName: String { rawValue.lowercased() }

    public var description: String { rawValue }
}
