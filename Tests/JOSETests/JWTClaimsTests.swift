import JOSE
import Testing

@Suite("JWTClaims decoding")
struct JWTClaimsTests {
    private func decode(_ json: String) throws -> JWTClaims { try JWTClaims.decode(Array(json.utf8)) }

    @Test func audienceStringOrArray() throws {
        #expect(try decode(#"{"aud":"a"}"#).aud == ["a"])
        #expect(try decode(#"{"aud":["a","b"]}"#).aud == ["a", "b"])
        #expect(try decode(#"{}"#).aud == [])
        #expect(throws: JOSEError.malformed) { try decode(#"{"aud":["a",1]}"#) }
        #expect(throws: JOSEError.malformed) { try decode(#"{"aud":5}"#) }
    }

    @Test("Apple's string booleans and real booleans both decode")
    func appleBooleans() throws {
        let apple = try decode(#"{"email_verified":"true","is_private_email":"false"}"#)
        #expect(apple.emailVerified == true && apple.isPrivateEmail == false)
        let google = try decode(#"{"email_verified":false,"is_private_email":true}"#)
        #expect(google.emailVerified == false && google.isPrivateEmail == true)
        #expect(throws: JOSEError.malformed) { try decode(#"{"email_verified":"yes"}"#) }
        #expect(throws: JOSEError.malformed) { try decode(#"{"email_verified":1}"#) }
    }

    @Test("NumericDate accepts integers and floors non-integral numbers")
    func numericDates() throws {
        let claims = try decode(#"{"exp":1700000000,"iat":1699999999.9,"nbf":1.6e9}"#)
        #expect(claims.exp == 1_700_000_000 && claims.iat == 1_699_999_999 && claims.nbf == 1_600_000_000)
        #expect(throws: JOSEError.malformed) { try decode(#"{"exp":"1700000000"}"#) }
        #expect(throws: JOSEError.malformed) { try decode(#"{"exp":1e300}"#) }
    }

    @Test func registeredClaimsAndUnknownOnesKept() throws {
        let claims = try decode(#"{"iss":"i","sub":"s","azp":"z","nonce":"n","email":"e","name":"N","given_name":"G","family_name":"F","x":{"y":[1,null]}}"#)
        #expect(claims.iss == "i" && claims.sub == "s" && claims.azp == "z" && claims.nonce == "n" && claims.email == "e")
        #expect(claims.name == "N" && claims.givenName == "G" && claims.familyName == "F")
        #expect(claims.raw["x"] == .object(["y": .array([.integer(1), .null])]))
        #expect(throws: JOSEError.malformed) { try decode(#"{"sub":123}"#) }
    }

    @Test(arguments: ["[1,2]", "\"text\"", "42", "", "{", "not json"])
    func payloadMustBeObject(_ payload: String) {
        #expect(throws: JOSEError.malformed) { try JWTClaims.decode(Array(payload.utf8)) }
    }
}
