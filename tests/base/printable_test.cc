#include "base/printable.h"

#include <doctest/doctest.h>

#include <string>

using hnow::printable;

TEST_CASE("printable keeps plain names and valid UTF-8 as they are") {
  CHECK(printable("course/lab 1/notes.txt") == "course/lab 1/notes.txt");
  CHECK(printable("caf\xc3\xa9/\xe6\x97\xa5\xe6\x9c\xac/\xf0\x9f\x93\x81") == "caf\xc3\xa9/\xe6\x97\xa5\xe6\x9c\xac/\xf0\x9f\x93\x81");
}

TEST_CASE("printable escapes control bytes, DEL and invalid UTF-8 as \\xNN") {
  CHECK(printable("a\nb") == "a\\x0ab");
  CHECK(printable("tab\there") == "tab\\x09here");
  CHECK(printable("del\x7f") == "del\\x7f");
  CHECK(printable("bad\xff") == "bad\\xff");
  CHECK(printable("cut\xc3") == "cut\\xc3");                  // a sequence cut short
  CHECK(printable("over\xc0\xaf") == "over\\xc0\\xaf");       // an overlong '/'
  CHECK(printable("sur\xed\xa0\x80") == "sur\\xed\\xa0\\x80");  // a UTF-16 surrogate
}

TEST_CASE("printable escapes the backslash, so an escaped name never equals a real one") {
  CHECK(printable("a\\x0ab") == "a\\\\x0ab");
  CHECK(printable("a\\x0ab") != printable("a\nb"));
}

TEST_CASE("oneLine escapes what would end a log line or start another, and keeps backslashes and tabs") {
  CHECK(hnow::oneLine("lab\n<4>forged") == "lab\\x0a<4>forged");
  CHECK(hnow::oneLine("a\r\nb\x1b[31m\x7f") == "a\\x0d\\x0ab\\x1b[31m\\x7f");
  CHECK(hnow::oneLine("C:\\dir\tx") == "C:\\dir\tx");
  CHECK(hnow::oneLine("caf\xc3\xa9 \xff") == "caf\xc3\xa9 \\xff");
}

TEST_CASE("plainText is valid UTF-8 without control bytes") {
  CHECK(hnow::plainText("room-b"));
  CHECK(hnow::plainText("salle 2.\xc3\xa9tage"));
  CHECK(hnow::plainText(""));
  CHECK_FALSE(hnow::plainText("lab\n<4>forged"));
  CHECK_FALSE(hnow::plainText("tab\there"));
  CHECK_FALSE(hnow::plainText("del\x7f"));
  CHECK_FALSE(hnow::plainText("bad\xff"));
}
