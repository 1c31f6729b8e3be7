import Foundation
import SusiJSON

/// Star ratings: `/cms/getSkillRating.json` (anyone), `/cms/fiveStarRateSkill.json` and
/// `/cms/getRatingByUser.json` (logged-in users).
enum RatingEndpoints {
  /// The skill a rating call names, found like the real server: by tag case-insensitively,
  /// then by `::name`.
  static func skill(
    _ request: EndpointRequest, defaultGroup: String
  ) throws(APIError) -> Skill {
    let parameters = request.parameters
    guard let name = parameters["skill"] else { throw APIError.nullPointer("skill") }
    guard
      let skill = request.context.library.skillForRating(
        model: parameters.string("model", "general"),
        group: parameters.string("group", defaultGroup),
        language: parameters.string("language", "en"), name: name)
    else { throw APIError(404, "Skill does not exist.") }
    return skill
  }

  static func key(_ skill: Skill) -> SkillKey {
    SkillKey(model: skill.model, group: skill.group, language: skill.language, skill: skill.tag)
  }

  static func skillRating(_ request: EndpointRequest) throws(APIError) -> JSONReply {
    let skill = try skill(request, defaultGroup: "Knowledge")
    let key = key(skill)
    return request.context.readState { state in
      let rating = state.ratings.skillRating(key)
      guard state.ratings.stars(key).total > 0 else {
        return JSONReply([
          "accepted": false, "message": "Skill has not been rated yet", "skill_rating": rating,
        ])
      }
      return JSONReply([
        "skill_name": .string(skill.tag), "skill_rating": rating, "accepted": true,
        "message": "Skill ratings fetched",
      ])
    }
  }

  /// Records the caller's stars (a repeat replaces them) and answers the skill's aggregate.
  ///
  /// Like the real server there is no range check: stars outside 1…5 change no bucket, and when
  /// the skill then has no ratings at all the average is NaN and the reply a 500. Unlike it,
  /// such a rating is not stored.
  static func rate(_ request: EndpointRequest) throws(APIError) -> JSONReply {
    let skill = try skill(request, defaultGroup: "Knowledge")
    guard request.parameters["stars"] != nil else { throw APIError(422, "Rating not provided.") }
    let stars = try request.parameters.int("stars", 0)
    let key = key(skill)
    let context = request.context
    return try context.withState { (state: inout ServerState) throws(APIError) -> JSONReply in
      let account = try request.account(in: state)
      var ratings = state.ratings
      if (1...5).contains(stars) {
        ratings.set(key, user: account.email, rating: UserRating(stars: stars, date: request.now))
        if let store = context.store {
          do throws(FileError) { try store.saveRatings(ratings) } catch {
            throw ServerContext.saveFailed(error)
          }
        }
        state.ratings = ratings
      }
      let counts = ratings.stars(key)
      guard counts.total > 0 else {
        throw APIError(
          500, APIError.serverError,
          cause: "org.json.JSONException: JSON does not allow non-finite numbers.")
      }
      return JSONReply([
        "accepted": true, "message": "Skill ratings updated", "ratings": counts.json,
      ])
    }
  }

  /// The caller's own rating. The skill's existence is not checked and `group` defaults to
  /// `All`, as on the real server (so callers must pass the group).
  static func byUser(_ request: EndpointRequest) throws(APIError) -> JSONReply {
    let parameters = request.parameters
    guard let name = parameters["skill"] else { throw APIError.nullPointer("skill") }
    let key = SkillKey(
      model: parameters.string("model", "general"), group: parameters.string("group", "All"),
      language: parameters.string("language", "en"), skill: name)
    return try request.context.withState { (state: inout ServerState) throws(APIError) in
      let account = try request.account(in: state)
      if let rating = state.ratings.rating(key, user: account.email) {
        return JSONReply([
          "accepted": true, "message": "Fetched user rating successfully",
          "ratings": .object([
            "email": .string(account.email), "stars": .int(rating.stars),
            "timestamp": .string(SusiDateFormat.timestamp(rating.date)),
          ]),
        ])
      }
      if state.ratings.hasRatings(key) {
        return JSONReply(["accepted": true, "message": "Skill not yet rated by the user"])
      }
      return JSONReply(["accepted": true, "message": "Skill not rated by the user"])
    }
  }
}
