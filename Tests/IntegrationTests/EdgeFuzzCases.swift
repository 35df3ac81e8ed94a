import Foundation
import TestVectors

/// One raw request of the edge fuzzing, and what the gateway must answer to it.
struct EdgeFuzzCase: Sendable {
    /// What the gateway must answer.
    enum Expectation: Sendable {
        /// A 4xx, from the gateway or from libmicrohttpd.
        case clientError
        /// 400 exactly: a control character in a JSON string field (`INVALID_REQUEST`), or what libmicrohttpd
        /// answers a request line it reads as empty.
        case badRequest
        /// The connection closed without an answer: libmicrohttpd's way with a request line it cannot split.
        case closedUnanswered

        /// Whether `status` (nil: closed without an answer) is what this expects.
        func accepts(_ status: Int?) -> Bool {
            switch self {
            case .clientError: status.map { (400..<500).contains($0) } ?? false
            case .badRequest: status == 400
            case .closedUnanswered: status == nil
            }
        }
    }

    let kind: String
    let bytes: [UInt8]
    let expectation: Expectation
}

/// Makes the cases from a seed: random bytes in methods, paths, header names and values, control characters
/// in JSON string fields, and request lines with nothing to split. The version stays `HTTP/1.1`: a request
/// naming HTTP/2 or later is answered 505 by libmicrohttpd itself (docs/api.md).
struct EdgeFuzzCases {
    private var random: SeededGenerator
    private let bearer: String

    /// Routes whose every answer to a made-up method, a POST without a JSON body, or no token is a 4xx.
    private static let paths = ["/api/members/me", "/api/auth/google-login", "/api/auth/refresh", "/api/auth/logout",
                                "/api/auth/sessions", "/api/members/me/identities", "/api/auth/apple/notifications",
                                "/healthz", "/readyz", "/.well-known/jwks.json", "/openapi.yaml"]
    private static let knownHeaders = ["Authorization", "Content-Type", "X-Request-Id", "X-Forwarded-For", "Host", "Accept",
                                       "Cookie", "User-Agent", "Origin", "Accept-Encoding", "Range", "If-None-Match"]
    /// Each endpoint with a body, its string fields, and a body of sane values to put a bad one into.
    private static let bodies: [(path: String, needsBearer: Bool, fields: [String], base: KeyValuePairs<String, String>)] = [
        ("/api/auth/google-login", false, ["idToken", "deviceId", "nonce", "accessToken", "timezone", "locale"],
         ["idToken": "x.y.z", "deviceId": "device-1"]),
        ("/api/auth/apple-login", false, ["identityToken", "deviceId", "rawNonce", "authorizationCode", "email", "timezone", "locale",
                                          "fullName.givenName", "fullName.familyName"],
         ["identityToken": "x.y.z", "deviceId": "device-1"]),
        ("/api/auth/naver-login", false, ["accessToken", "deviceId", "timezone", "locale"], ["accessToken": "token", "deviceId": "device-1"]),
        ("/api/auth/kakao-login", false, ["idToken", "deviceId", "nonce", "timezone", "locale"], ["idToken": "x.y.z", "deviceId": "device-1"]),
        ("/api/auth/refresh", false, ["refreshToken", "deviceId"], ["refreshToken": "token"]),
        ("/api/auth/apple/notifications", false, ["payload"], ["payload": "x.y.z"]),
        ("/api/members/me/identities", true, ["provider", "idToken", "nonce"], ["provider": "google", "idToken": "x.y.z"]),
    ]

    init(seed: UInt64, bearer: String) {
        random = SeededGenerator(seed: seed)
        self.bearer = bearer
    }

    /// `count` cases, in the order the seed gives.
    mutating func make(count: Int) -> [EdgeFuzzCase] {
        (0..<count).map { _ in
            switch Int.random(in: 0..<20, using: &random) {
            case 0..<4: method()
            case 4..<8: path()
            case 8..<11: headerNames()
            case 11..<14: headerValues()
            case 14..<19: controlCharacterField()
            default: unsplittableRequestLine()
            }
        }
    }

    private mutating func method() -> EdgeFuzzCase {
        var method: [UInt8]
        repeat {
            method = bytes(Int.random(in: 1...12, using: &random), excluding: [0x20, 0x0D, 0x0A])
        } while ["GET", "HEAD", "POST", "DELETE"].contains(String(decoding: method, as: UTF8.self))
        return EdgeFuzzCase(kind: "method", bytes: request(method: method, target: Array(pick(Self.paths).utf8)), expectation: .clientError)
    }

    private mutating func path() -> EdgeFuzzCase {
        var target: [UInt8]
        if Bool.random(using: &random) {
            target = Array("/".utf8) + bytes(Int.random(in: 0...60, using: &random), excluding: [0x20, 0x0D, 0x0A])
        } else {
            let original = Array(pick(Self.paths).utf8)
            target = original
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                let position = Int.random(in: 1...target.count, using: &random)
                let insert: [UInt8] = switch Int.random(in: 0..<6, using: &random) {
                case 0: bytes(1, excluding: [0x20, 0x0D, 0x0A])
                case 1: Array(String(format: "%%%02X", Int.random(in: 0...255, using: &random)).utf8)
                case 2: Array(pick(["/", "//", "/./", "/../", "/.", "/.."]).utf8)
                case 3: Array("?".utf8) + bytes(Int.random(in: 0...10, using: &random), excluding: [0x20, 0x0D, 0x0A])
                case 4: Array("#".utf8)
                default: Array("%2f".utf8)
                }
                target.insert(contentsOf: insert, at: position)
            }
            if target == original { target += Array("/".utf8) }
        }
        // A POST without a JSON body: every route answers it 4xx (401, 405, 415), every other path 404.
        return EdgeFuzzCase(kind: "path", bytes: request(method: Array("POST".utf8), target: target, body: Array("{}".utf8)),
                            expectation: .clientError)
    }

    private mutating func headerNames() -> EdgeFuzzCase {
        let headers = (0..<Int.random(in: 1...5, using: &random)).map { _ in
            (bytes(Int.random(in: 1...30, using: &random), excluding: [0x3A, 0x0D, 0x0A]),
             bytes(Int.random(in: 0...40, using: &random), excluding: [0x0D, 0x0A]))
        }
        return EdgeFuzzCase(kind: "header name", bytes: request(method: Array("GET".utf8), target: Array("/api/members/me".utf8),
                                                                headers: headers), expectation: .clientError)
    }

    private mutating func headerValues() -> EdgeFuzzCase {
        let name = pick(Self.knownHeaders)
        var value = bytes(Int.random(in: 0...100, using: &random), excluding: [0x0D, 0x0A])
        if name == "Authorization", Bool.random(using: &random) { value = Array("Bearer ".utf8) + value }
        let login = Bool.random(using: &random)
        var headers = [(Array(name.utf8), value)]
        if login, name != "Content-Type" { headers.append((Array("Content-Type".utf8), Array("application/json".utf8))) }
        // A login with a token no provider signed (401), or the member's profile without a valid token (401).
        let bytes = login
            ? request(method: Array("POST".utf8), target: Array("/api/auth/google-login".utf8), headers: headers,
                      body: Array(#"{"idToken":"x.y.z","deviceId":"device-1"}"#.utf8))
            : request(method: Array("GET".utf8), target: Array("/api/members/me".utf8), headers: headers)
        return EdgeFuzzCase(kind: "header value (\(name))", bytes: bytes, expectation: .clientError)
    }

    private mutating func controlCharacterField() -> EdgeFuzzCase {
        let endpoint = pick(Self.bodies)
        let field = pick(endpoint.fields)
        let raw = Int.random(in: 0..<5, using: &random) == 0
        var scalars = (0..<Int.random(in: 0...20, using: &random)).map { _ in pick(Array("aZ09-_.é한🙂 ".unicodeScalars)) }
        for _ in 0..<Int.random(in: 1...3, using: &random) {
            let control = pick(Array(0x00...0x1F) + [0x7F, 0x85, 0x9F])
            scalars.insert(Unicode.Scalar(UInt32(control))!, at: Int.random(in: 0...scalars.count, using: &random))
        }
        var members = endpoint.base.filter { $0.key != field }.map { "\(Self.quoted($0.key)):\(Self.quoted($0.value))" }
        let bad = Self.quoted(String(String.UnicodeScalarView(scalars)), escapingControls: !raw)
        if field.hasPrefix("fullName.") {
            members.append(#""fullName":{"\#(field.dropFirst("fullName.".count))":\#(bad)}"#)
        } else {
            members.append("\(Self.quoted(field)):\(bad)")
        }
        let body = "{" + members.joined(separator: ",") + "}"
        var headers = [(Array("Content-Type".utf8), Array("application/json".utf8))]
        if endpoint.needsBearer { headers.append((Array("Authorization".utf8), Array("Bearer \(bearer)".utf8))) }
        return EdgeFuzzCase(kind: "control character in \(endpoint.path) \(field)\(raw ? " (raw)" : "")",
                            bytes: request(method: Array("POST".utf8), target: Array(endpoint.path.utf8), headers: headers,
                                           body: Array(body.utf8)),
                            expectation: .badRequest)
    }

    private mutating func unsplittableRequestLine() -> EdgeFuzzCase {
        let line = Bool.random(using: &random)
            ? bytes(Int.random(in: 1...30, using: &random), excluding: [0x20, 0x0D, 0x0A])
            : Array(" GET /healthz HTTP/1.1".utf8)
        // libmicrohttpd reads a line that starts with NUL as an empty one, which may precede a request: the next
        // line, `Host: gateway`, is then the request line, and that it refuses with 400.
        return EdgeFuzzCase(kind: "request line", bytes: line + Array("\r\nHost: gateway\r\n\r\n".utf8),
                            expectation: line.first == 0 ? .badRequest : .closedUnanswered)
    }

    /// `method target HTTP/1.1`, the headers, `Content-Length` for a body, and `Connection: close`.
    private func request(method: [UInt8], target: [UInt8], headers: [([UInt8], [UInt8])] = [], body: [UInt8] = []) -> [UInt8] {
        var bytes = method + [0x20] + target + Array(" HTTP/1.1\r\nHost: gateway\r\n".utf8)
        for (name, value) in headers { bytes += name + Array(": ".utf8) + value + Array("\r\n".utf8) }
        if !body.isEmpty { bytes += Array("Content-Length: \(body.count)\r\n".utf8) }
        return bytes + Array("Connection: close\r\n\r\n".utf8) + body
    }

    private mutating func bytes(_ count: Int, excluding excluded: Set<UInt8>) -> [UInt8] {
        (0..<count).map { _ in
            var byte: UInt8
            repeat { byte = UInt8.random(in: 0...255, using: &random) } while excluded.contains(byte)
            return byte
        }
    }

    private mutating func pick<T>(_ choices: [T]) -> T {
        choices[Int.random(in: 0..<choices.count, using: &random)]
    }

    /// `text` as a JSON string; control characters as `\u00XX` escapes, or, with `escapingControls` false, raw (invalid JSON).
    private static func quoted(_ text: String, escapingControls: Bool = true) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20 && escapingControls: out += String(format: "\\u%04X", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
