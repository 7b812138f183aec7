/// The ranges io.curtain.Launcher and io.curtain.App accept for their numeric parameters
/// (documented in the .varlink files). Here, not in the daemon, so curtainctl checks the same
/// ranges before it calls.
public enum WireLimits {
    /// Watch's `fps`: at least one frame in 10 s (a smaller rate made the frame divisor
    /// overflow an Int), at most the highest `daemon.frame_rate`.
    public static let watchFPS: ClosedRange<Double> = 0.1...1000
    /// Control's `progress` (seek), a fraction of the transition.
    public static let progress: ClosedRange<Double> = 0...1
    /// An element frame's coordinates and size, in points: far beyond any screen, small enough
    /// that the reveal's arithmetic on them stays finite and exact enough.
    public static let elementCoordinate: ClosedRange<Double> = -100_000...100_000
    public static let elementSize: ClosedRange<Double> = 0...100_000
}
