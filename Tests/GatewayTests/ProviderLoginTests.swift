import Contracts
import Testing
@testable import Gateway

/// Each provider's login fields are checked in one place, so a login and linking an identity of that
/// provider accept and refuse the same fields with the same answers.
@Suite("A provider's login fields")
struct ProviderLoginTests {
    private static func failure(_ body: () throws(ServiceFailure) -> ProviderLogin) -> ServiceFailure? {
        do {
            _ = try body()
            return nil
        } catch {
            return error
        }
    }

    @Test("each provider's token becomes what the verifier is asked, with its nonce and code")
    func verifyRequests() throws {
        let google = try ProviderLogin.google(idToken: "g", nonce: "n", accessToken: "a")
        #expect(google.verify.provider == .google && google.verify.token == "g" && google.verify.nonce == "n")
        let apple = try ProviderLogin.apple(identityToken: "i", rawNonce: "r", authorizationCode: "c",
                                            fullName: PersonName(givenName: "Ada", familyName: "Lovelace"), email: "ada@example.com")
        #expect(apple.verify.provider == .apple && apple.verify.token == "i" && apple.verify.nonce == "r")
        #expect(apple.verify.authorizationCode == "c")
        #expect(apple.name == "Ada Lovelace" && apple.email == "ada@example.com")
        let naver = try ProviderLogin.naver(accessToken: "t")
        #expect(naver.verify.provider == .naver && naver.verify.token == "t" && naver.verify.nonce == nil)
        let kakao = try ProviderLogin.kakao(idToken: "k", nonce: nil)
        #expect(kakao.verify.provider == .kakao && kakao.verify.token == "k")
    }

    @Test("a link names the provider's token field and gets the same checks as that provider's login")
    func linkSameAsLogin() {
        let long = String(repeating: "x", count: FieldLimits.token + 1)
        let cases: [(Provider, LinkIdentityBody, ServiceFailure?)] = [
            (.google, LinkIdentityBody(provider: "google", idToken: long), Self.failure { () throws(ServiceFailure) in
                try ProviderLogin.google(idToken: long, nonce: nil, accessToken: nil) }),
            (.google, LinkIdentityBody(provider: "google", idToken: "t", accessToken: "a\nb"), Self.failure { () throws(ServiceFailure) in
                try ProviderLogin.google(idToken: "t", nonce: nil, accessToken: "a\nb") }),
            (.apple, LinkIdentityBody(provider: "apple", identityToken: "t", email: " "), Self.failure { () throws(ServiceFailure) in
                try ProviderLogin.apple(identityToken: "t", rawNonce: nil, authorizationCode: nil, fullName: nil, email: " ") }),
            (.apple, LinkIdentityBody(provider: "apple", identityToken: "t", fullName: PersonName(givenName: long)),
             Self.failure { () throws(ServiceFailure) in
                 try ProviderLogin.apple(identityToken: "t", rawNonce: nil, authorizationCode: nil, fullName: PersonName(givenName: long), email: nil) }),
            (.kakao, LinkIdentityBody(provider: "kakao", idToken: "t", nonce: String(repeating: "n", count: 513)),
             Self.failure { () throws(ServiceFailure) in try ProviderLogin.kakao(idToken: "t", nonce: String(repeating: "n", count: 513)) }),
            (.naver, LinkIdentityBody(provider: "naver", accessToken: ""), Self.failure { () throws(ServiceFailure) in
                try ProviderLogin.naver(accessToken: "") }),
        ]
        for (provider, body, loginFailure) in cases {
            let linkFailure = Self.failure { () throws(ServiceFailure) in try ProviderLogin.linking(provider, body) }
            #expect(loginFailure?.code == .invalidRequest)
            #expect(linkFailure?.message == loginFailure?.message)
        }
    }

    @Test("a link without the provider's token field is 400 naming the field and the provider", arguments: [
        (Provider.google, "idToken is required for provider google."),
        (.apple, "identityToken is required for provider apple."),
        (.naver, "accessToken is required for provider naver."),
        (.kakao, "idToken is required for provider kakao."),
    ])
    func missingToken(_ provider: Provider, _ message: String) {
        // Another provider's token field does not stand in.
        let body = LinkIdentityBody(provider: provider.rawValue, idToken: provider == .naver ? "t" : nil,
                                    identityToken: provider == .apple ? nil : "t", accessToken: provider == .naver ? nil : "t")
        let failure = Self.failure { () throws(ServiceFailure) in try ProviderLogin.linking(provider, body) }
        #expect(failure?.code == .invalidRequest)
        #expect(failure?.message == message)
    }
}
