import Contracts
import Foundation
import JSON
import Testing
import TestSupport
import DevIDP

/// `GET` and `PATCH /api/members/me`: the profile's fields, the rules an update must meet, and what a
/// login changes, through the gateway into PostgreSQL and out as `member.updated`.
@Suite("Member profile", .serialized)
struct MemberProfileTests {
    private func login(_ stack: RunningStack, sub: String, claims: [String: JSONValue] = [:], timezone: String? = nil,
                       locale: String? = nil) async throws -> LoginResponse {
        let token = try await stack.googleToken(sub: sub, claims: claims)
        let response = try await stack.post("/api/auth/google-login",
                                            json: GoogleLoginBody(idToken: token, deviceId: "device-1", timezone: timezone, locale: locale))
        #expect(response.status == 200, "body: \(response.text)")
        return try response.data(LoginResponse.self)
    }

    private func patch(_ stack: RunningStack, _ body: String, bearer: String) async throws -> APIResponse {
        try await stack.send("PATCH", "/api/members/me",
                             headers: [("Authorization", "Bearer \(bearer)"), ("Content-Type", "application/json")], body: Array(body.utf8))
    }

    private func me(_ stack: RunningStack, _ bearer: String) async throws -> MemberResponse {
        try await stack.get("/api/members/me", bearer: bearer).data(MemberResponse.self)
    }

    @Test("a login's time zone, locale and picture show in GET; a later login's replace them, and member.updated names them")
    func loginFields() async throws {
        let stack = try await TestStack.shared.running()
        let sub = RunningStack.uniqueSubject("profile")
        let first = try await login(stack, sub: sub, claims: ["picture": .string("https://photos.example.com/1.jpg")],
                                    timezone: "Asia/Seoul", locale: "ko_KR")
        var profile = try await me(stack, first.accessToken)
        #expect(profile.timezone == "Asia/Seoul")
        #expect(profile.locale == "ko-KR", "Apple's identifier form stored as a BCP 47 tag")
        #expect(profile.pictureUrl == "https://photos.example.com/1.jpg")

        // Junk time zones and locales are ignored by a login, which still succeeds; a picture that is not https is not kept.
        let second = try await login(stack, sub: sub, claims: ["picture": .string("http://photos.example.com/2.jpg")],
                                     timezone: "Mars/Olympus", locale: "not a locale")
        profile = try await me(stack, second.accessToken)
        #expect(profile.timezone == "Asia/Seoul" && profile.locale == "ko-KR" && profile.pictureUrl == "https://photos.example.com/1.jpg")

        let third = try await login(stack, sub: sub, claims: ["picture": .string("https://photos.example.com/3.jpg")],
                                    timezone: "Europe/Paris", locale: "fr-FR")
        profile = try await me(stack, third.accessToken)
        #expect(profile.timezone == "Europe/Paris" && profile.locale == "fr-FR" && profile.pictureUrl == "https://photos.example.com/3.jpg")
        let updates = try await stack.events(Events.memberUpdated, timeout: .seconds(3), count: 2) { $0.memberId == first.memberId }
        #expect(updates.map(\.data.fields) == [["locale", "pictureUrl", "timezone"]])
        #expect(updates.first?.data.source == "login")
    }

    @Test("Naver's profile_image is the picture; linking a Kakao identity keeps it, and fills a member's empty picture")
    func pictures() async throws {
        let stack = try await TestStack.shared.running()
        let naverId = RunningStack.uniqueSubject("naver")
        let token = await stack.naverToken(NaverAccount(id: naverId, nickname: "nick", profileImage: "https://phinf.pstatic.net/n.jpg"))
        let naver = try await stack.post("/api/auth/naver-login", json: NaverLoginBody(accessToken: token, deviceId: "device-1"))
            .data(LoginResponse.self)
        #expect(try await me(stack, naver.accessToken).pictureUrl == "https://phinf.pstatic.net/n.jpg")

        let kakaoToken = { (sub: String) in
            try await stack.mint("kakao", claims: ["sub": .string(sub), "aud": .string(TestStack.ClientID.kakao),
                                                    "picture": .string("https://k.kakaocdn.net/\(sub).jpg")])
        }
        let kept = try await stack.link(naver.accessToken, LinkIdentityBody(provider: "KAKAO", idToken: try await kakaoToken(RunningStack.uniqueSubject("kakao"))))
        #expect(kept.status == 200, "\(kept.text)")
        #expect(try kept.data(MemberResponse.self).pictureUrl == "https://phinf.pstatic.net/n.jpg", "a link never replaces the picture")

        // A Google member without a picture gets the linked identity's, announced with source link.
        let google = try await login(stack, sub: RunningStack.uniqueSubject("profile"))
        #expect(try await me(stack, google.accessToken).pictureUrl == nil)
        let kakaoSub = RunningStack.uniqueSubject("kakao")
        let filled = try await stack.link(google.accessToken, LinkIdentityBody(provider: "KAKAO", idToken: try await kakaoToken(kakaoSub)))
        #expect(try filled.data(MemberResponse.self).pictureUrl == "https://k.kakaocdn.net/\(kakaoSub).jpg")
        let updates = try await stack.events(Events.memberUpdated, timeout: .seconds(3), count: 2) { $0.memberId == google.memberId }
        #expect(updates.map(\.data.fields) == [["pictureUrl"]])
        #expect(updates.first?.data.source == "link")
    }

    @Test("PATCH changes the fields it carries, answers the profile, and announces the change once")
    func update() async throws {
        let stack = try await TestStack.shared.running()
        let login = try await login(stack, sub: RunningStack.uniqueSubject("profile"), timezone: "Asia/Seoul", locale: "ko-KR")
        let response = try await patch(stack, #"{"name": "Kim Minji", "locale": "EN-us"}"#, bearer: login.accessToken)
        #expect(response.status == 200, "body: \(response.text)")
        #expect(response.headers.first { $0.0.lowercased() == "cache-control" }?.1 == "no-store")
        let answered = try response.data(MemberResponse.self)
        #expect(answered.name == "Kim Minji" && answered.locale == "en-US" && answered.timezone == "Asia/Seoul")
        #expect(try await me(stack, login.accessToken) == answered)

        // The same values again change nothing and announce nothing.
        #expect(try await patch(stack, #"{"name": "Kim Minji"}"#, bearer: login.accessToken).status == 200)
        #expect(try await patch(stack, #"{"timezone": "UTC"}"#, bearer: login.accessToken).status == 200)
        let updates = try await stack.events(Events.memberUpdated, timeout: .seconds(3), count: 3) { $0.memberId == login.memberId }
        #expect(updates.map(\.data.fields) == [["locale", "name"], ["timezone"]])
        #expect(updates.allSatisfy { $0.data.source == "request" })
        #expect(try await me(stack, login.accessToken).timezone == "UTC")
    }

    @Test("bad input is 400 naming the field and changes nothing", arguments: [
        (#"{"name": ""}"#, "name"), (#"{"name": "   "}"#, "name"), (#"{"name": "a\u0007b"}"#, "name"),
        (#"{"name": "\#(String(repeating: "x", count: 201))"}"#, "name"), (#"{"name": 42}"#, "name"),
        (#"{"timezone": "GMT+9"}"#, "timezone"), (#"{"timezone": "Mars/Olympus"}"#, "timezone"), (#"{"timezone": ""}"#, "timezone"),
        (#"{"locale": "ko_KR"}"#, "locale"), (#"{"locale": "en--US"}"#, "locale"), (#"{"locale": ["en"]}"#, "locale"),
        (#"{"name": "Valid", "locale": "x"}"#, "locale"), (#"[]"#, ""), (#"not json"#, ""),
        (#"{"name": "a\u202Eevil"}"#, "name"), (#"{"name": "\u200B"}"#, "name"), (#"{"timezone": "PST"}"#, "timezone"),
    ])
    func refused(body: String, field: String) async throws {
        let stack = try await TestStack.shared.running()
        let login = try await login(stack, sub: RunningStack.uniqueSubject("profile"), timezone: "Asia/Seoul", locale: "ko-KR")
        let before = try await me(stack, login.accessToken)
        let response = try await patch(stack, body, bearer: login.accessToken)
        #expect(response.status == 400, "body: \(response.text)")
        #expect(response.failure?.code == .invalidRequest)
        if !field.isEmpty { #expect(response.failure?.message.contains(field) == true, "\(response.failure?.message ?? "")") }
        #expect(try await me(stack, login.accessToken) == before)
    }

    @Test("PATCH without a Bearer is 401, without JSON's content type 415")
    func refusedRequests() async throws {
        let stack = try await TestStack.shared.running()
        let login = try await login(stack, sub: RunningStack.uniqueSubject("profile"))
        let anonymous = try await stack.send("PATCH", "/api/members/me", headers: [("Content-Type", "application/json")],
                                             body: Array(#"{"name": "x"}"#.utf8))
        #expect(anonymous.status == 401)
        let plain = try await stack.send("PATCH", "/api/members/me",
                                         headers: [("Authorization", "Bearer \(login.accessToken)"), ("Content-Type", "text/plain")],
                                         body: Array(#"{"name": "x"}"#.utf8))
        #expect(plain.status == 415)
        #expect(try await me(stack, login.accessToken).name != "x")
    }

    @Test("member-service checks an update again: a request on the bus that skipped the gateway is refused")
    func serviceChecksAgain() async throws {
        let stack = try await TestStack.shared.running()
        let login = try await login(stack, sub: RunningStack.uniqueSubject("profile"), timezone: "Asia/Seoul")
        for request in [MemberUpdateRequest(memberId: login.memberId, accessToken: login.accessToken, timezone: "GMT+9"), MemberUpdateRequest(memberId: login.memberId, accessToken: login.accessToken, locale: "en_US"),
                        MemberUpdateRequest(memberId: login.memberId, accessToken: login.accessToken, name: "a\u{0}b")] {
            let result = try await stack.callResult(Endpoints.memberUpdate, request)
            #expect(throws: ServiceFailure.self) { try result.get() }
            if case .failure(let failure) = result { #expect(failure.code == .invalidRequest) }
        }
        #expect(try await me(stack, login.accessToken).timezone == "Asia/Seoul")
    }

    @Test("another method on /api/members/me is 405 naming the allowed ones")
    func methodNotAllowed() async throws {
        let stack = try await TestStack.shared.running()
        let response = try await stack.send("PUT", "/api/members/me", headers: [("Content-Type", "application/json")], body: Array("{}".utf8))
        #expect(response.status == 405)
        #expect(response.headers.first { $0.0.lowercased() == "allow" }?.1 == "GET, PATCH, DELETE")
    }

    @Test("a provider's claims with a NUL or line breaks are cleaned or refused, never a 500")
    func providerControlCharacters() async throws {
        let stack = try await TestStack.shared.running()
        let sub = RunningStack.uniqueSubject("profile")
        let named = try await login(stack, sub: sub, claims: ["name": .string("Kim\u{0}Minji\nX-Injected: 1"), "email": .string("x\u{0}@y.com")])
        let profile = try await me(stack, named.accessToken)
        #expect(profile.name == "Kim Minji X-Injected: 1")
        #expect(profile.email == nil, "an email with a NUL is none")

        let badSubject = try await stack.googleToken(sub: "bad\u{0}sub")
        let refused = try await stack.post("/api/auth/google-login", json: GoogleLoginBody(idToken: badSubject, deviceId: "device-1"))
        #expect(refused.status == 401 && refused.failure?.code == .invalidProviderToken, "\(refused.text)")

        let naver = await stack.naverToken(NaverAccount(id: "n\u{0}1", nickname: "n"))
        let naverLogin = try await stack.post("/api/auth/naver-login", json: NaverLoginBody(accessToken: naver, deviceId: "device-1"))
        #expect(naverLogin.status == 401, "\(naverLogin.text)")

        let kakao = try await stack.mint("kakao", claims: ["sub": .string(RunningStack.uniqueSubject("kakao")), "aud": .string(TestStack.ClientID.kakao),
                                                            "email": .string("k\u{0}@y.com"), "name": .string("\u{202E}evil")])
        let linked = try await stack.link(named.accessToken, LinkIdentityBody(provider: "KAKAO", idToken: kakao))
        #expect(linked.status == 200, "\(linked.text)")
        #expect(try linked.data(MemberResponse.self).identities.first { $0.provider == "KAKAO" }?.email == nil)
    }
}
