#pragma once
// A send's picture as SVG (docs/send.md, "The picture of a send"): each
// tree it ran on, the plan first and then each replan below it; a striped
// send's stripes side by side in each. Nodes show the rates hnowd measured,
// edges the planned and the achieved rate (coloured by how much of the plan
// they achieved, dashed and "?" when not known), the bottleneck in red.
// Used by `hnow send --svg`, `hnow ops show ID --svg`, `hnow demo` and the
// web view alike.
#include <string>

#include "api/send_picture.h"

namespace hnow::api {

std::string renderSendPicture(const SendPicture& picture);

}  // namespace hnow::api
