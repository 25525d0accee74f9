#include "api/send_request_wire.h"

#include <kj/debug.h>

#include <cmath>

#include "transport/agent_wire.h"

namespace hnow::api {

void toWire(const SendRequest& r, wire::SendRequest::Builder out) {
  out.setPath(r.path);
  out.setDest(r.dest);
  auto to = out.initTo(static_cast<unsigned>(r.to.size()));
  for (std::size_t i = 0; i < r.to.size(); ++i) to.set(static_cast<unsigned>(i), r.to[i]);
  out.setAlgo(r.algo);
  out.setNoReplan(!r.replan);
  transport::toWire(r.copy, out.initCopy());
  out.setCompress(r.compress);
  out.setUntilAll(r.untilAll);
  out.setMaxRateBytesPerS(r.maxRateBytesPerSecond);
  out.setForce(r.force);
  out.setUpload(r.upload);
  out.setUploadIsTree(r.uploadIsTree);
  out.setUploadKey(r.uploadKey);
  auto stamp = out.initUploadStamp();
  stamp.setSize(r.uploadStamp.size);
  stamp.setMtimeNs(r.uploadStamp.mtimeNs);
  stamp.setCtimeNs(r.uploadStamp.ctimeNs);
  stamp.setInode(r.uploadStamp.inode);
}

SendRequest sendRequestFromWire(wire::SendRequest::Reader in) {
  SendRequest r;
  r.path = in.getPath();
  r.dest = in.getDest();
  for (auto t : in.getTo()) r.to.emplace_back(t);
  r.algo = in.getAlgo();
  if (r.algo.empty()) r.algo = "auto";
  r.replan = !in.getNoReplan();
  r.copy = transport::copyOptionsFromWire(in.getCopy());
  r.compress = in.getCompress();
  if (r.compress.empty()) r.compress = "auto";
  r.untilAll = in.getUntilAll();
  r.maxRateBytesPerSecond = in.getMaxRateBytesPerS();
  KJ_REQUIRE(std::isfinite(r.maxRateBytesPerSecond) && r.maxRateBytesPerSecond >= 0,
             "a send's max rate must be finite and not negative");
  r.force = in.getForce();
  r.upload = in.getUpload();
  r.uploadIsTree = in.getUploadIsTree();
  r.uploadKey = in.getUploadKey();
  const auto stamp = in.getUploadStamp();
  r.uploadStamp = {stamp.getSize(), stamp.getMtimeNs(), stamp.getCtimeNs(), stamp.getInode()};
  return r;
}

}  // namespace hnow::api
