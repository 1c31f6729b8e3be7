import Foundation
import SusiJSON

/// `/aaa/addNewDevice.json` and `/aaa/listUserDevices.json` (both need a login): the devices a
/// user registered (smart speakers register themselves at login), kept in the account as the
/// real server keeps them: `devices.<MAC> = {name, room, geolocation: {latitude, longitude},
/// deviceAddTime}`.
enum DeviceEndpoints {
  /// Devices kept per account; adding one more than this is refused (the real server has no
  /// bound; this keeps a looping client from growing the accounts file without end).
  static let maximumDevices = 100

  static func add(_ request: EndpointRequest) throws(APIError) -> JSONReply {
    let parameters = request.parameters
    guard let mac = parameters["macid"], let name = parameters["name"],
      let room = parameters["room"]
    else { throw APIError(400, "Bad service call, missing arguments") }
    guard isMACAddress(mac) else { throw APIError(400, "Invalid Mac Address.") }
    let latitude = parameters.nonEmpty("latitude") ?? "Latitude not available."
    let longitude = parameters.nonEmpty("longitude") ?? "Longitude not available."
    let device: JSONObject = [
      "name": .string(name), "room": .string(room),
      "geolocation": ["latitude": .string(latitude), "longitude": .string(longitude)],
      "deviceAddTime": .string(SusiDateFormat.millis(request.now)),
    ]
    try request.changeAccount { (account: inout Account) throws(APIError) in
      if account.devices[mac] == nil && account.devices.count >= maximumDevices {
        throw APIError(400, "Too many devices: at most \(maximumDevices) are kept per account")
      }
      account.devices[mac] = .object(device)
    }
    return JSONReply(["accepted": true, "message": "You have successfully added the device!"])
  }

  static func list(_ request: EndpointRequest) throws(APIError) -> JSONReply {
    let account = try request.storedAccount()
    return JSONReply([
      "devices": .object(account.devices), "accepted": true,
      "message": "Success: Showing user devices",
    ])
  }

  /// Six pairs of hex digits joined by `:` or `-` (`^([0-9A-Fa-f]{2}[:-]){5}([0-9A-Fa-f]{2})$`).
  static func isMACAddress(_ text: String) -> Bool {
    let bytes = Array(text.utf8)
    guard bytes.count == 17 else { return false }
    for (index, byte) in bytes.enumerated() {
      if index % 3 == 2 {
        guard byte == UInt8(ascii: ":") || byte == UInt8(ascii: "-") else { return false }
      } else {
        let isHex =
          (48...57).contains(byte) || (65...70).contains(byte) || (97...102).contains(byte)
        guard isHex else { return false }
      }
    }
    return true
  }
}
