/// Polls `condition` every 10 ms until it holds or `timeout` passes; returns whether it held.
///
/// For tests waiting on something another task or process does (a push arriving, a merge):
///
/// ```swift
/// #expect(await eventually { titles() == ["Hello"] })
/// ```
///
/// - Parameters:
///   - timeout: The longest wait on an ordinary build (``TestTimeScale`` stretches it under a
///     sanitizer); keep it wide, tests share loaded cores.
///   - condition: What to wait for.
/// - Returns: Whether `condition` held before the timeout.
public func eventually(timeout: Duration = .seconds(30), _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + TestTimeScale.scaled(timeout)
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return try await condition()
}
