#include <doctest/doctest.h>

#include "edgemt/status.h"

using edgemt::Result;
using edgemt::Status;
using edgemt::StatusCode;

TEST_CASE("a default status is ok") {
  Status s;
  CHECK(s.ok());
  CHECK(s.ToString() == "ok");
}

TEST_CASE("an error status carries its code and message") {
  Status s(StatusCode::kInvalidModel, "tensor 'w' is truncated");
  CHECK_FALSE(s.ok());
  CHECK(s.code() == StatusCode::kInvalidModel);
  CHECK(s.ToString() == "invalid model: tensor 'w' is truncated");
}

TEST_CASE("a result holds a value or a status") {
  Result<int> good(42);
  REQUIRE(good.ok());
  CHECK(good.value() == 42);
  Result<int> bad(Status(StatusCode::kNotFound, "no such file"));
  CHECK_FALSE(bad.ok());
  CHECK(bad.status().code() == StatusCode::kNotFound);
}

TEST_CASE("a result made of an ok status is an internal error, never ok without a value") {
  Result<int> none(Status::Ok());
  CHECK_FALSE(none.ok());
  CHECK_FALSE(none.status().ok());
  CHECK(none.status().code() == StatusCode::kInternal);
}
