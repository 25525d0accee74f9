#pragma once
// A send's picture (send_picture.h) as JSON: the form hnowd keeps with the
// send's record (its summary's "picture", so `hnow ops show ID --svg`
// draws it after the fact, after hnowd restarts too) and carries to the
// client in the send's report.
#include <string>
#include <string_view>

#include "api/send_picture.h"
#include "base/result.h"

namespace hnow::api {

std::string sendPictureJson(const SendPicture& picture);
// The picture back, or what is wrong with the text and where.
Result<SendPicture> sendPictureFromJson(std::string_view json);

}  // namespace hnow::api
