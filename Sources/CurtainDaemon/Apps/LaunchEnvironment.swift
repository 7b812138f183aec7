import CurtainCore
import JSON

/// The destination as an app receives it in its environment (docs: README "Writing an app"):
/// the same variables whether curtaind spawns the app (`ProcessSupervisor`) or systemd starts
/// its unit (`UnitSupervisor`, through the unit's environment file). Values are data, never
/// passed through a shell.
enum LaunchEnvironment {
    /// `CURTAIN_LAUNCH_ID`, `CURTAIN_APP`, `CURTAIN_ROUTE_KIND`, `CURTAIN_SCREEN`,
    /// `CURTAIN_PARAMS` (a JSON object of strings, keys sorted) and, when curtaind serves
    /// io.curtain.App, `CURTAIN_SOCKET`; in this order.
    static func variables(
        launch: LaunchID,
        app: String,
        route: Route,
        destination: Destination,
        apiSocket: String?
    ) -> [(String, String)] {
        let parameters = JSONValue.object(destination.parameters.mapValues { .string($0.description) })
        var variables = [
            ("CURTAIN_LAUNCH_ID", "\(launch)"), ("CURTAIN_APP", app), ("CURTAIN_ROUTE_KIND", kind(of: route)),
            ("CURTAIN_SCREEN", destination.screen), ("CURTAIN_PARAMS", JSONWriter.string(parameters, sortedKeys: true)),
        ]
        if let apiSocket { variables.append(("CURTAIN_SOCKET", apiSocket)) }
        return variables
    }

    /// How the launch arrived, in the words of `CURTAIN_ROUTE_KIND` and io.curtain.App's `kind`.
    static func kind(of route: Route) -> String {
        switch route {
        case .normal: "normal"
        case .push: "push"
        case .deeplink: "deeplink"
        }
    }
}
