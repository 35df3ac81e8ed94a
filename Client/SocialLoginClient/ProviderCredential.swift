import Foundation

/// What a provider's SDK handed the app, ready to send for a login or an identity link.
/// Empty optional values are dropped (the server refuses blank fields).
public struct ProviderCredential: Sendable {
    /// The provider the credential is from.
    public let provider: IdentityProvider
    /// The body fields of this provider's login request (without the device fields).
    let fields: CredentialFields

    private init(_ provider: IdentityProvider, _ fields: CredentialFields) {
        self.provider = provider
        self.fields = fields
    }

    /// Google Sign-In: `GIDGoogleUser.idToken.tokenString`; `nonce` is the raw nonce given to
    /// `GIDSignIn.signIn(..., nonce:)`, if any; `accessToken` is optional and not used to sign in.
    public static func google(idToken: String, nonce: String? = nil, accessToken: String? = nil) -> ProviderCredential {
        ProviderCredential(.google, CredentialFields(idToken: idToken, accessToken: accessToken.nonBlank, nonce: nonce.nonBlank))
    }

    /// Sign in with Apple: `ASAuthorizationAppleIDCredential.identityToken` and
    /// `.authorizationCode` as UTF-8 strings, `.fullName` and `.email` (Apple sends them on the
    /// first sign-in only; the server keeps them), and `rawNonce`, whose SHA-256 was the request's nonce.
    public static func apple(identityToken: String, authorizationCode: String? = nil, fullName: PersonNameComponents? = nil,
                             email: String? = nil, rawNonce: String? = nil) -> ProviderCredential {
        let name = PersonName(givenName: fullName?.givenName.nonBlank, familyName: fullName?.familyName.nonBlank)
        return ProviderCredential(.apple, CredentialFields(identityToken: identityToken, authorizationCode: authorizationCode.nonBlank,
                                                           rawNonce: rawNonce.nonBlank, email: email.nonBlank,
                                                           fullName: name.isEmpty ? nil : name))
    }

    /// Naver Login: the access token of `NidOAuth` (the server proves it with Naver's profile API).
    public static func naver(accessToken: String) -> ProviderCredential {
        ProviderCredential(.naver, CredentialFields(accessToken: accessToken))
    }

    /// Kakao Login with OpenID Connect: `OAuthToken.idToken`; `nonce` is the raw nonce given to
    /// `loginWithKakaoTalk(nonce:)` / `loginWithKakaoAccount(nonce:)`, if any.
    public static func kakao(idToken: String, nonce: String? = nil) -> ProviderCredential {
        ProviderCredential(.kakao, CredentialFields(idToken: idToken, nonce: nonce.nonBlank))
    }

    /// The token the server verifies, for the client's own check that it is not empty.
    var token: String {
        fields.idToken ?? fields.identityToken ?? fields.accessToken ?? ""
    }
}

/// Every field a login or link body may carry; nil ones are left out of the JSON.
struct CredentialFields: Encodable, Sendable {
    var provider: String?
    var idToken: String?
    var identityToken: String?
    var accessToken: String?
    var authorizationCode: String?
    var nonce: String?
    var rawNonce: String?
    var email: String?
    var fullName: PersonName?
    var deviceId: String?
    var timezone: String?
    var locale: String?
    var platform: String?
    var appVersion: String?
}

/// The name Sign in with Apple gives the app, as the API takes it.
struct PersonName: Encodable, Sendable {
    var givenName: String?
    var familyName: String?

    var isEmpty: Bool { givenName == nil && familyName == nil }
}

extension Optional where Wrapped == String {
    /// The string trimmed, or nil when it is nil or blank.
    var nonBlank: String? {
        guard let trimmed = self?.trimmingCharacters(in: .whitespacesAndNewlines), !trimmed.isEmpty else { return nil }
        return trimmed
    }
}
