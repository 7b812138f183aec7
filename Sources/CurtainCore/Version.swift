/// Curtain's version: the one constant curtaind (GetInfo, GetStatus, --version) and every
/// curtainctl command report.
public enum CurtainVersion {
    public static let string = "0.1.0"
}
