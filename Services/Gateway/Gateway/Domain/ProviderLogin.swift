import Contracts
import Rules

/// What a provider's login hands the gateway, checked in one place per provider: a login
/// (`/api/auth/<provider>-login`) and linking an identity (`/api/members/me/identities`) send the same
/// fields and get the same checks.
struct ProviderLogin: Sendable {
    /// What the token-verifier is asked to prove.
    let verify: VerifyRequest
    /// The name the provider gave the app (Apple, first sign-in only).
    var name: String?
    /// The email the provider gave the app (Apple, first sign-in only).
    var email: String?

    /// Google: the ID token, its raw nonce if any, and Google's access token if the app has one (not used).
    static func google(idToken: String?, nonce: String?, accessToken: String?) throws(ServiceFailure) -> ProviderLogin {
        let idToken = try required(idToken, "idToken", for: .google, maxBytes: FieldLimits.token)
        try Field.optional(nonce, "nonce", maxBytes: FieldLimits.nonce)
        try Field.optional(accessToken, "accessToken", maxBytes: FieldLimits.token)
        return ProviderLogin(verify: VerifyRequest(provider: .google, token: idToken, nonce: nonce))
    }

    /// Apple: the identity token, the raw nonce, the one-time authorization code, and the name and email
    /// Apple hands the app on the first sign-in only.
    static func apple(identityToken: String?, rawNonce: String?, authorizationCode: String?,
                      fullName: PersonName?, email: String?) throws(ServiceFailure) -> ProviderLogin {
        let identityToken = try required(identityToken, "identityToken", for: .apple, maxBytes: FieldLimits.token)
        try Field.optional(rawNonce, "rawNonce", maxBytes: FieldLimits.nonce)
        try Field.optional(authorizationCode, "authorizationCode", maxBytes: FieldLimits.token)
        try Field.optional(email, "email", maxBytes: FieldLimits.email)
        try Field.optional(fullName?.givenName, "fullName.givenName", maxBytes: FieldLimits.name)
        try Field.optional(fullName?.familyName, "fullName.familyName", maxBytes: FieldLimits.name)
        return ProviderLogin(verify: VerifyRequest(provider: .apple, token: identityToken, nonce: rawNonce,
                                                   authorizationCode: authorizationCode),
                             name: fullName?.formatted, email: email)
    }

    /// Naver: the access token.
    static func naver(accessToken: String?) throws(ServiceFailure) -> ProviderLogin {
        let accessToken = try required(accessToken, "accessToken", for: .naver, maxBytes: FieldLimits.token)
        return ProviderLogin(verify: VerifyRequest(provider: .naver, token: accessToken))
    }

    /// Kakao: the ID token and its raw nonce if any.
    static func kakao(idToken: String?, nonce: String?) throws(ServiceFailure) -> ProviderLogin {
        let idToken = try required(idToken, "idToken", for: .kakao, maxBytes: FieldLimits.token)
        try Field.optional(nonce, "nonce", maxBytes: FieldLimits.nonce)
        return ProviderLogin(verify: VerifyRequest(provider: .kakao, token: idToken, nonce: nonce))
    }

    /// The login fields of `provider` in a link request.
    static func linking(_ provider: Provider, _ body: LinkIdentityBody) throws(ServiceFailure) -> ProviderLogin {
        switch provider {
        case .google: try google(idToken: body.idToken, nonce: body.nonce, accessToken: body.accessToken)
        case .apple: try apple(identityToken: body.identityToken, rawNonce: body.rawNonce,
                               authorizationCode: body.authorizationCode, fullName: body.fullName, email: body.email)
        case .naver: try naver(accessToken: body.accessToken)
        case .kakao: try kakao(idToken: body.idToken, nonce: body.nonce)
        }
    }

    /// A field the provider's login needs: present (else 400 naming it and the provider) and passing
    /// ``Field/required(_:_:maxBytes:)``.
    private static func required(_ value: String?, _ name: String, for provider: Provider,
                                 maxBytes: Int) throws(ServiceFailure) -> String {
        guard let value else {
            throw ServiceFailure.invalidRequest("\(name) is required for provider \(provider.rawValue.lowercased()).")
        }
        try Field.required(value, name, maxBytes: maxBytes)
        return value
    }
}
