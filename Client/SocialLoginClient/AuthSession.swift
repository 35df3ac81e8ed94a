import Foundation

/// The signed-in state behind one `AuthClient`: the tokens (read from the store once, then
/// kept here), the single refresh in flight, and the observers of sign-in and sign-out.
actor AuthSession {
    /// Exchanges a refresh token for new tokens (the HTTP call); an `APIError` with status 401
    /// means the server will never accept that refresh token again.
    typealias Refresh = @Sendable (_ refreshToken: String) async throws -> LoginPayload

    private let store: any TokenStore
    private let refresh: Refresh
    private var tokens: StoredTokens?
    private var loaded = false
    private var state: AuthState = .signedOut(.noSession)
    /// Bumped by every sign-in and sign-out: a refresh that started in an older generation is
    /// discarded, so a sign-out during a refresh cannot be undone by the refresh's answer.
    private var generation = 0
    /// The one refresh in flight; every caller that needs a refresh meanwhile awaits it.
    private var refreshing: Task<StoredTokens, any Error>?
    /// The last store write; writes are chained so the store sees them in the order they happened here.
    private var lastWrite: Task<Void, any Error>?
    /// Whether the last write failed (a locked device): the store is then behind this client, not ahead.
    private var storeBehind = false
    private var observers: [UUID: AsyncStream<AuthState>.Continuation] = [:]
    private var eventObservers: [UUID: AsyncStream<AuthEvent>.Continuation] = [:]
    private let refreshLimit: RefreshLimit
    /// When the refreshes of the current window were sent, oldest first.
    private var recentRefreshes: [ContinuousClock.Instant] = []

    init(store: any TokenStore, refreshLimit: RefreshLimit, refresh: @escaping Refresh) {
        self.store = store
        self.refreshLimit = refreshLimit
        self.refresh = refresh
    }

    /// The tokens, read from the store on first use. A store that could not be read (a locked device)
    /// throws, and is read again at the next call; one that could not be written is written again.
    func current() async throws -> StoredTokens? {
        if storeBehind, loaded {
            try? await persist(tokens)
        }
        if !loaded {
            let stored = try await store.loadTokens()
            // A sign-in or sign-out while the store was read is newer than what it held.
            if !loaded {
                tokens = stored
                loaded = true
                // Observers that came while the store could not be read (a locked device) were told nothing yet.
                state = stored.map { .signedIn(memberId: $0.memberId) } ?? .signedOut(.noSession)
                for observer in observers.values { observer.yield(state) }
            }
        }
        return tokens
    }

    /// An access token to send: the stored one, or a new one when it expires within `margin`.
    /// If that proactive refresh fails for a reason other than the server ending the session
    /// (offline, 503) while the old token is still valid, the old token is used.
    func accessToken(refreshingWithin margin: Duration) async throws -> String {
        guard let tokens = try await current() else { throw ClientError.notSignedIn }
        let remaining = tokens.expiresAt.timeIntervalSinceNow
        guard remaining <= Double(margin.components.seconds) else { return tokens.accessToken }
        do {
            return try await refreshed(replacing: tokens.accessToken).accessToken
        } catch let error as APIError where error.status == 401 {
            throw error
        } catch let error as ClientError where error != .refreshLimitReached || remaining <= 0 {
            throw error
        } catch where remaining > 0 {
            return tokens.accessToken
        }
    }

    /// New tokens, refreshing at most once for all concurrent callers.
    ///
    /// `failed` is the access token the server just refused: if the stored one differs, another
    /// caller refreshed meanwhile and its tokens are returned without a new refresh. With nil,
    /// a refresh happens unless one is in flight.
    func refreshed(replacing failed: String?) async throws -> StoredTokens {
        let tokens = try await current()
        if let refreshing { return try await refreshing.value }
        guard let tokens else { throw ClientError.notSignedIn }
        if let failed, tokens.accessToken != failed { return tokens }
        let generation = generation
        let task = Task { try await self.refreshUnlessAdopted(tokens, generation: generation) }
        refreshing = task
        defer { if refreshing == task { refreshing = nil } }
        return try await task.value
    }

    /// Refreshes `tokens`, unless the store shows another process did already, and within the limit.
    private func refreshUnlessAdopted(_ tokens: StoredTokens, generation: Int) async throws -> StoredTokens {
        // Another process sharing the store (an app extension) may have rotated the tokens, or signed
        // out: refreshing with the rotated token would be seen as its reuse and end the session for both.
        if let adopted = try await adoptStored(instead: tokens) { return adopted }
        let now = ContinuousClock.now
        recentRefreshes.removeAll { now - $0 >= refreshLimit.window }
        guard recentRefreshes.count < refreshLimit.count else { throw ClientError.refreshLimitReached }
        recentRefreshes.append(now)
        do {
            return try await performRefresh(tokens, generation: generation)
        } catch let error as TransportError {
            // It never reached the server (offline): it rotated nothing, so it does not count.
            recentRefreshes.removeAll { $0 == now }
            throw error
        }
    }

    /// The tokens to use instead of refreshing `tokens`, or nil to refresh them: newer ones another process
    /// sharing the store rotated to (an app extension), or this client's own when its state moved on while
    /// the store was read. Signs out when another process did; a store that cannot be read (a locked
    /// device) throws, since tokens rotated now could only be kept in memory, and a process killed before
    /// the unlock would present the old refresh token again: its reuse, which ends the session.
    private func adoptStored(instead tokens: StoredTokens) async throws -> StoredTokens? {
        // This client's own last write first: until it lands the store holds older tokens than these.
        _ = await lastWrite?.result
        let generation = generation
        let stored = try await store.loadTokens()
        guard generation == self.generation, self.tokens == tokens else {
            if let current = self.tokens { return current }
            throw ClientError.notSignedIn
        }
        // The store is behind this client (its last write failed): what it holds is older.
        if storeBehind { return nil }
        guard let stored else {
            try? await signOut(.signedOutElsewhere)
            throw ClientError.notSignedIn
        }
        guard stored.refreshToken != tokens.refreshToken else { return nil }
        guard stored.memberId == tokens.memberId else {
            // Another process signed in as another member: this client follows, but the caller's request,
            // made for the member before, is not sent again as this one.
            self.generation += 1
            self.tokens = stored
            publish(.signedIn(memberId: stored.memberId))
            publishEvent(.signedIn(memberId: stored.memberId))
            throw ClientError.accountChanged
        }
        // A stale write (another process's older tokens) is not adopted: these are newer.
        guard stored.expiresAt > tokens.expiresAt else { return nil }
        self.tokens = stored
        publishEvent(.tokensRefreshed(memberId: stored.memberId))
        return stored
    }

    private func performRefresh(_ tokens: StoredTokens, generation: Int) async throws -> StoredTokens {
        let sentAt = Date()
        let payload: LoginPayload
        do {
            payload = try await refresh(tokens.refreshToken)
        } catch let error as APIError where error.status == 401 || error.code == .memberSuspended {
            // The session is over on the server (rotated away, reused, expired, logged out, the member suspended):
            // sign out here too.
            if generation == self.generation {
                let reason: SignOutReason = switch error.code {
                case .refreshTokenReused: .refreshTokenReused
                case .memberSuspended: .memberSuspended
                default: .sessionExpired
                }
                try? await signOut(reason)
            }
            throw error
        }
        guard generation == self.generation else {
            // Signed out or in again while this refresh ran: its tokens belong to a session that is over here.
            if let current = self.tokens { return current }
            throw ClientError.notSignedIn
        }
        let fresh = payload.tokens(receivedAt: sentAt)
        self.tokens = fresh
        publishEvent(.tokensRefreshed(memberId: fresh.memberId))
        // The server has rotated: these are the only good tokens, so a store that cannot take them now (a
        // locked device) does not fail the request. They are written again at the next call (`current()`).
        try? await persist(fresh)
        return fresh
    }

    /// Adopts the tokens of a login.
    func signIn(_ payload: LoginPayload, receivedAt: Date) async throws {
        let fresh = payload.tokens(receivedAt: receivedAt)
        generation += 1
        tokens = fresh
        loaded = true
        publish(.signedIn(memberId: fresh.memberId))
        publishEvent(.signedIn(memberId: fresh.memberId))
        try await persist(fresh)
    }

    /// Forgets the tokens and tells the observers why (once: a second sign-out tells nobody).
    func signOut(_ reason: SignOutReason) async throws {
        let wasSignedIn = tokens != nil || !loaded
        generation += 1
        tokens = nil
        loaded = true
        if wasSignedIn {
            publish(.signedOut(reason))
            publishEvent(.signedOut(reason))
        }
        try await persist(nil)
    }

    /// A stream of states: the current one first, then every change.
    func states() async -> AsyncStream<AuthState> {
        // Unknown while the store cannot be read: the state comes once it is (see `current()`).
        let known = (try? await current()) != nil || loaded
        let (stream, continuation) = AsyncStream<AuthState>.makeStream(bufferingPolicy: .bufferingNewest(16))
        let id = UUID()
        observers[id] = continuation
        continuation.onTermination = { [weak self] _ in
            Task { await self?.removeObserver(id) }
        }
        if known { continuation.yield(state) }
        return stream
    }

    /// A stream of the events from now on.
    func events() -> AsyncStream<AuthEvent> {
        let (stream, continuation) = AsyncStream<AuthEvent>.makeStream(bufferingPolicy: .bufferingNewest(64))
        let id = UUID()
        eventObservers[id] = continuation
        continuation.onTermination = { [weak self] _ in
            Task { await self?.removeObserver(id) }
        }
        return stream
    }

    private func removeObserver(_ id: UUID) {
        observers[id] = nil
        eventObservers[id] = nil
    }

    private func publishEvent(_ event: AuthEvent) {
        for observer in eventObservers.values { observer.yield(event) }
    }

    private func publish(_ new: AuthState) {
        guard new != state else { return }
        state = new
        for observer in observers.values { observer.yield(new) }
    }

    private func persist(_ tokens: StoredTokens?) async throws {
        let previous = lastWrite
        let store = store
        let write = Task {
            _ = await previous?.result
            if let tokens { try await store.saveTokens(tokens) } else { try await store.clearTokens() }
        }
        lastWrite = write
        do {
            try await write.value
            storeBehind = false
        } catch {
            storeBehind = true
            throw error
        }
    }
}
