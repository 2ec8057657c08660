#pragma once
// Forwarding header: the library's errors live in pipeline/error.hpp.
#include "pipeline/error.hpp"
