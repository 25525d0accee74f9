#pragma once
// Text in a send's picture: numbers as people read them ("2.72 s",
// "94 MB/s", "64 MB"), and untrusted text (agent names, reasons) made safe
// for SVG: XML's special characters escaped, control characters and bytes
// that are not UTF-8 replaced.
#include <string>

namespace hnow::api {

std::string secondsText(double seconds);
// Decimal units, as link rates are sold: "94 MB/s", "9.4 MB/s", "940 kB/s".
std::string rateText(double bytesPerSecond);
std::string sizeText(double bytes);
// Safe inside an XML element or a double-quoted attribute.
std::string xmlText(const std::string& text);
// At most `chars` characters (UTF-8 aware), "…" at the end when cut.
std::string shortened(const std::string& text, std::size_t chars);

}  // namespace hnow::api
