/// The action types of the real server (`SusiAction.RenderType`), with the score each adds to
/// an intent's rank: a skill action of another type is ignored.
enum ActionKind: String, CaseIterable {
  case answer, stop, pause, resume, restart, previous, next, table, piechart, rss, websearch
  case anchor, map, emotion, io, shuffle
  case timerSet = "timer_set"
  case timerReset = "timer_reset"
  case audioVolume = "audio_volume"
  case audioRecord = "audio_record"
  case audioPlay = "audio_play"
  case videoRecord = "video_record"
  case videoPlay = "video_play"
  case imageTake = "image_take"
  case imageShow = "image_show"
  case buttonPush = "button_push"

  /// The render score: answers 196, stop/pause/resume 255, web searches 0, volume 200, every
  /// other type 128.
  var score: Int {
    switch self {
    case .answer: 196
    case .stop, .pause, .resume: 255
    case .websearch: 0
    case .audioVolume: 200
    default: 128
    }
  }
}
