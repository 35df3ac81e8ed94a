import Crypto
import JOSE

/// A Naver user behind an access token minted by `POST /naver/mint`.
public struct NaverAccount: Codable, Sendable, Equatable {
    /// Naver's user ID; nil makes the profile answer without one.
    public var id: String?
    /// The email, if the user shares it.
    public var email: String?
    /// The name, if shared.
    public var name: String?
    /// The nickname, if shared.
    public var nickname: String?
    /// The profile picture's URL (`profile_image`), if shared.
    public var profileImage: String?
    /// A `resultcode` other than `"00"` for the profile API to answer (with HTTP 200).
    public var resultcode: String?

    /// Creates an account.
    public init(id: String?, email: String? = nil, name: String? = nil, nickname: String? = nil, profileImage: String? = nil,
                resultcode: String? = nil) {
        self.id = id
        self.email = email
        self.name = name
        self.nickname = nickname
        self.profileImage = profileImage
        self.resultcode = resultcode
    }

    enum CodingKeys: String, CodingKey {
        case id, email, name, nickname, resultcode
        case profileImage = "profile_image"
    }
}

extension DevIdentityProvider {
    /// A new Naver access token for `account`.
    public func mintNaverToken(_ account: NaverAccount) -> String {
        let token = "AAAA" + Base64URL.encode(SecureRandom.bytes(30))
        naverAccounts[token] = account
        return token
    }

    /// The account behind a live access token.
    func naverAccount(token: String) -> NaverAccount? {
        naverAccounts[token]
    }

    /// Whether the access token is still live (not deleted).
    public func naverTokenIsLive(_ token: String) -> Bool {
        naverAccounts[token] != nil
    }

    /// How many delete calls named `token`, successful or not.
    public func naverDeleteAttempts(_ token: String) -> Int {
        naverDeleteAttempts[token] ?? 0
    }

    /// Whether the client credentials are the configured ones (any, when none are configured).
    func naverClientMatches(id: String?, secret: String?) -> Bool {
        (configuration.naverClientID == nil || configuration.naverClientID == id)
            && (configuration.naverClientSecret == nil || configuration.naverClientSecret == secret)
    }

    /// Deletes `token`: true when it was live.
    func deleteNaverToken(_ token: String) -> Bool {
        naverDeleteAttempts[token, default: 0] += 1
        guard naverAccounts.removeValue(forKey: token) != nil else { return false }
        naverDeletions += 1
        return true
    }
}
