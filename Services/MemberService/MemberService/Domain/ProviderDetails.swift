import Contracts
import Rules

/// What a provider and an app say of the user, as the member-service keeps it (``ProfileRules``). Nothing on
/// the bus is trusted, the verifier's answer neither: a login or link is never refused over these, what is
/// not acceptable is dropped or cleaned.
enum ProviderDetails {
    /// The identity with a name's control or invisible characters cleaned, an email that is none dropped,
    /// and a picture that is not a plain https URL dropped.
    static func cleaned(_ identity: VerifiedIdentity) -> VerifiedIdentity {
        var identity = identity
        identity.name = ProfileRules.providerName(identity.name)
        identity.email = ProfileRules.providerEmail(identity.email)
        identity.pictureUrl = ProfileRules.pictureURL(identity.pictureUrl)
        return identity
    }

    /// A login with its identity and the app's name and email cleaned, a time zone or locale the app
    /// sent kept only when it is one (the locale in its usual case), and what it says of its client cut
    /// to its limits without control characters (`ClientRules.cleaned`).
    static func cleaned(_ login: MemberLoginRequest) -> MemberLoginRequest {
        var login = login
        login.client = ClientRules.cleaned(login.client)
        login.identity = cleaned(login.identity)
        login.name = ProfileRules.providerName(login.name)
        login.email = ProfileRules.providerEmail(login.email)
        login.timezone = login.timezone.flatMap { ProfileRules.isKnownTimeZone($0) ? $0 : nil }
        login.locale = login.locale.flatMap(ProfileRules.loginLocale)
        return login
    }

    /// A link with its identity and the app's name and email cleaned.
    static func cleaned(_ link: LinkIdentityRequest) -> LinkIdentityRequest {
        var link = link
        link.identity = cleaned(link.identity)
        link.name = ProfileRules.providerName(link.name)
        link.email = ProfileRules.providerEmail(link.email)
        return link
    }
}
