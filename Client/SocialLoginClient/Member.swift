import Foundation

/// The signed-in member (`GET /api/members/me`).
public struct Member: Decodable, Sendable, Equatable {
    /// The member's ID.
    public let memberId: Int64
    /// The member's email, if a provider gave one.
    public let email: String?
    /// The member's name, if known.
    public let name: String?
    /// The member's picture, an `https` URL from the provider of the latest sign-in that gave one, as the
    /// server sent it (a `String`, so that no URL parser's strictness can fail the whole member).
    public let pictureUrl: String?
    /// The member's IANA time zone (`Asia/Seoul`), if known.
    public let timezone: String?
    /// The member's BCP 47 locale (`ko-KR`), if known.
    public let locale: String?
    /// The provider identities linked to the member.
    public let identities: [LinkedIdentity]
    /// When the member was created.
    public let createdAt: Date

    /// `pictureUrl` as a `URL`, when this platform's parser takes it.
    public var pictureURL: URL? { pictureUrl.flatMap(URL.init(string:)) }
}
