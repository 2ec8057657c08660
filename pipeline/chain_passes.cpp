// The chain's passes: fusion planned at configure time (pipeline/fusion.hpp) and how the
// passes are named wherever their time is reported.
#include "pipeline/chain.hpp"

#include "pipeline/fused_pass.hpp"

namespace vf {

Chain::Chain() = default;
Chain::~Chain() = default;
Chain::Chain(Chain&&) = default;
Chain& Chain::operator=(Chain&&) = default;

bool Chain::setFusion(Fusion mode) {
  if (fuse_ == mode) return false;
  fuse_ = mode;
  configured_ = false;
  return true;
}

void Chain::planFusion(ClContext& cl) {
  std::vector<std::size_t> indices;
  std::vector<FusionTraits> traits;
  for (std::size_t i = 0; i < stages_.size(); ++i) {
    if (!enabled_[i]) continue;
    Stage& st = *stages_[i];
    const PointFn* f = st.pointFn();
    indices.push_back(i);
    traits.push_back({f != nullptr, f && f->startsPass, st.histogramCounter() != nullptr, false,
                      f && f->inChannels == f->outChannels, st.takesEpilogue()});
  }
  // The frames chain stage i reads.
  const auto inputOf = [&](std::size_t i) { return i == 0 ? input_ : stageOut_[i - 1]; };
  const bool fuse = fuse_ == Fusion::On || (fuse_ == Fusion::Auto && !cl.facts().cpu);
  // A stage that takes the filter before it computes it from the next frame on (planPasses
  // always fuses the two); every other reader reads its input as it is.
  for (std::size_t k = 0; k < indices.size(); ++k) {
    Stage& st = *stages_[indices[k]];
    SeparableFilter* f = k > 0 && fuse ? stages_[indices[k - 1]]->filter() : nullptr;
    traits[k].readsFilter = f && st.takesFilter(*f, inputOf(indices[k - 1]));
    clCall(st.name(), [&] { st.setFilter(traits[k].readsFilter ? f : nullptr); });
    traits[k].epilogue = st.takesEpilogue();  // its kernel may have changed
  }
  // A reader is offered the functions planPasses would fold into it (before the filter it
  // computes, if any); it says whether it reads through them, judging the frame the first one
  // reads.
  for (std::size_t k = 0; k < indices.size(); ++k) {
    const std::size_t at = traits[k].readsFilter ? k - 1 : k;
    const std::size_t first = prologueStart(traits, at);
    traits[k].prologue = first < at && stages_[indices[k]]->takesPrologue(inputOf(indices[first]));
  }
  passes_ = planPasses(indices, traits, fuse);
  fused_.clear();
  fused_.resize(passes_.size());
  for (std::size_t k = 0; k < passes_.size(); ++k) {
    if (!passes_[k].fused) continue;
    std::vector<Stage*> members;
    for (const std::size_t i : passes_[k].stages) members.push_back(stages_[i].get());
    const FrameDesc in = inputOf(passes_[k].stages.front());
    if (passes_[k].prologue || passes_[k].epilogue || passes_[k].filter) {
      const std::size_t r = passes_[k].reader;
      Stage* reader = members[r];
      // The functions read through end before the filter, when there is one.
      const std::ptrdiff_t fns = static_cast<std::ptrdiff_t>(r - (passes_[k].filter ? 1 : 0));
      const std::vector<Stage*> before(members.begin(), members.begin() + fns),
          after(members.begin() + static_cast<std::ptrdiff_t>(r) + 1, members.end());
      clCall(label(passes_[k]), [&] {
        if (passes_[k].prologue) reader->setPrologue(before, in);
        if (passes_[k].epilogue) reader->setEpilogue(after);
      });
      continue;
    }
    auto pass = std::make_unique<FusedPass>();
    clCall(label(passes_[k]), [&] { pass->configure(cl, members, in, padded() ? pitchPx_ : 0); });
    fused_[k] = std::move(pass);
  }
}

bool Chain::producer(const PassPlan& p) const {
  return p.fused || !stages_[p.stages.front()]->passthrough();
}

std::string Chain::label(const PassPlan& p) const {
  std::vector<std::string> names;
  for (const std::size_t i : p.stages) names.push_back(stages_[i]->name());
  return passLabel(names);
}

std::vector<Chain::Pass> Chain::passes() const {
  std::vector<Pass> out;
  for (std::size_t k = 0; k < passes_.size(); ++k) {
    const PassPlan& p = passes_[k];
    std::string schedule;
    if (fused_[k])
      schedule = fused_[k]->schedule();
    else if (p.prologue || p.epilogue || p.filter) {
      // The reader's schedule, what it reads and stores through.
      const auto reader = p.stages.begin() + static_cast<std::ptrdiff_t>(p.reader);
      const auto fnsEnd = p.filter ? reader - 1 : reader;
      schedule = stages_[*reader]->schedule();
      if (p.prologue) schedule += " prologue=" + label({{p.stages.begin(), fnsEnd}});
      if (p.filter) schedule += " filter=" + stages_[*fnsEnd]->name();
      if (p.epilogue) schedule += " epilogue=" + label({{reader + 1, p.stages.end()}});
    } else
      schedule = stages_[p.stages.front()]->schedule();
    out.push_back({label(p), p.stages, p.fused, schedule});
  }
  return out;
}

std::vector<std::string> Chain::timingNames() const {
  std::vector<std::string> names;
  for (const auto& st : stages_) names.push_back(st->name());
  if (!configured_) return names;
  for (const PassPlan& p : passes_) {
    if (!p.fused) continue;
    names[p.stages.front()] = label(p);
    for (std::size_t k = 1; k < p.stages.size(); ++k) names[p.stages[k]] = "";
  }
  return names;
}

}  // namespace vf
