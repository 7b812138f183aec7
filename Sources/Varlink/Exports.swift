// JSONValue is part of Varlink's API (parameters and replies are JSON objects).
@_exported import JSON
