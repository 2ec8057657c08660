#include "pipeline/fusion.hpp"

#include <stdexcept>

namespace vf {

namespace {
bool fusable(const FusionTraits& t) { return t.point || t.counter; }

// Closes the run [begin, end) of `indices` into passes: one fused pass when it holds two stages
// or more and at least one function, else a pass per stage.
void closeRun(const std::vector<std::size_t>& indices, const std::vector<FusionTraits>& traits,
              std::size_t begin, std::size_t end, std::vector<PassPlan>& out) {
  bool anyPoint = false;
  for (std::size_t k = begin; k < end; ++k) anyPoint = anyPoint || traits[k].point;
  if (end - begin >= 2 && anyPoint) {
    PassPlan p;
    p.fused = true;
    for (std::size_t k = begin; k < end; ++k) p.stages.push_back(indices[k]);
    out.push_back(std::move(p));
    return;
  }
  for (std::size_t k = begin; k < end; ++k) out.push_back({{indices[k]}});
}

// Appends to `p` (stage k's pass) the epilogue members after k; returns the position after
// the last one taken (k + 1 when none).
std::size_t takeEpilogue(const std::vector<std::size_t>& indices,
                         const std::vector<FusionTraits>& traits, std::size_t k, PassPlan& p) {
  std::size_t j = k + 1;
  if (!traits[k].epilogue) return j;
  for (; j < indices.size() && epilogueMember(traits[j]); ++j) p.stages.push_back(indices[j]);
  if (j > k + 1) {
    p.fused = true;
    p.epilogue = true;
  }
  return j;
}
}  // namespace

bool epilogueMember(const FusionTraits& t) {
  return t.counter || (t.point && t.keepsChannels && !t.startsPass);
}

std::size_t prologueStart(const std::vector<FusionTraits>& traits, std::size_t k) {
  std::size_t first = k;
  while (first > 0 && traits[first - 1].point && !traits[first - 1].counter) {
    --first;
    if (traits[first].startsPass) break;
  }
  return first;
}

std::vector<PassPlan> planPasses(const std::vector<std::size_t>& indices,
                                 const std::vector<FusionTraits>& traits, bool fuse) {
  if (indices.size() != traits.size())
    throw std::invalid_argument("planPasses: indices and traits differ in length");
  std::vector<PassPlan> out;
  std::size_t begin = 0;  // start of the current run of fusable stages
  std::size_t next = 0;   // where the loop goes on after a pass that took an epilogue
  for (std::size_t k = 0; k <= indices.size(); k = next) {
    next = k + 1;
    const bool end = k == indices.size();
    // A stage that cannot join ends the run; so does one whose function needs the whole frame
    // first (it starts the next run instead).
    const bool breaks = end || !fuse || !fusable(traits[k]) || traits[k].startsPass;
    if (!breaks) continue;
    if (fuse && k + 1 < indices.size() && traits[k + 1].readsFilter) {
      // Stage k is a filter the next one computes: one pass of the functions before k that
      // the reader reads through (its prologue), k, the reader and its epilogue.
      std::size_t tail = traits[k + 1].prologue ? prologueStart(traits, k) : k;
      if (tail < begin) tail = k;
      closeRun(indices, traits, begin, tail, out);
      PassPlan p{{}, true, tail < k, false, k + 1 - tail, true};
      for (std::size_t j = tail; j <= k + 1; ++j) p.stages.push_back(indices[j]);
      next = begin = takeEpilogue(indices, traits, k + 1, p);
      out.push_back(std::move(p));
      continue;
    }
    if (!end && fuse && traits[k].prologue) {
      // The run's functions after its last counter fold into stage k's loads.
      // Functions an epilogue before took (the run starts after it) stay there: then the stage
      // reads its input as it is.
      std::size_t tail = prologueStart(traits, k);
      if (tail < begin) tail = k;
      if (tail < k) {
        closeRun(indices, traits, begin, tail, out);
        PassPlan p{{}, true, true};
        for (std::size_t j = tail; j <= k; ++j) p.stages.push_back(indices[j]);
        p.reader = k - tail;
        next = begin = takeEpilogue(indices, traits, k, p);
        out.push_back(std::move(p));
        continue;
      }
    }
    closeRun(indices, traits, begin, k, out);
    begin = k;
    if (end) break;
    if (!fuse) {
      out.push_back({{indices[k]}});
      begin = k + 1;
    } else if (!fusable(traits[k])) {
      PassPlan p{{indices[k]}};
      next = begin = takeEpilogue(indices, traits, k, p);
      out.push_back(std::move(p));
    }
  }
  return out;
}

std::string passLabel(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : "+") + n;
  return s;
}

}  // namespace vf
