// Autograd: grad mode, the graph's nodes, backward/grad, hooks and retain_grad.
#include "autograd/engine.h"
#include "autograd/grad_mode.h"
#include "bindings/common.h"
#include "ops/view.h"

namespace lucid::py {

namespace {

int g_next_hook_id = 0;

autograd::Hook wrap_hook(nb::object fn) {
  // The callable outlives this call inside the engine's graph; hold it with the GIL on release.
  auto holder = std::shared_ptr<nb::object>(new nb::object(std::move(fn)), [](nb::object* o) {
    nb::gil_scoped_acquire g;
    delete o;
  });
  return [holder](const Tensor& g) -> Tensor {
    nb::gil_scoped_acquire gil;
    nb::object r = (*holder)(nb::cast(g));
    if (r.is_none()) return nullptr;
    Tensor t;
    LUCID_CHECK(nb::try_cast<Tensor>(r, t) && t, Type,
                "hook should return None or a Tensor, got " << nb::cast<std::string>(nb::str(r.type().attr("__name__"))));
    LUCID_CHECK(t->dtype() == g->dtype(), DtypeMismatch,
                "hook returned a gradient of dtype " << dtype_name(t->dtype()) << " for a gradient of dtype "
                                                     << dtype_name(g->dtype()));
    return t;
  };
}

struct HookHandle {
  std::weak_ptr<TensorImpl> leaf;         // for leaf hooks
  std::weak_ptr<autograd::Node> node;     // for non-leaf hooks
  uint32_t slot = 0;
  int id = -1;
  void remove() {
    auto drop = [this](auto& v) {
      for (auto it = v.begin(); it != v.end(); ++it)
        if (it->first == id) { v.erase(it); return; }
    };
    if (auto t = leaf.lock(); t && t->autograd_meta()) drop(t->autograd_meta()->hooks);
    if (auto n = node.lock(); n && slot < n->tensor_hooks.size()) drop(n->tensor_hooks[slot]);
  }
};

// A Python object held by a node: released with the GIL, whatever thread drops the node.
std::shared_ptr<nb::object> hold(nb::object o) {
  return std::shared_ptr<nb::object>(new nb::object(std::move(o)), [](nb::object* p) {
    nb::gil_scoped_acquire g;
    delete p;
  });
}

// The node of a lucid.autograd.Function: backward calls back into Python.
class PyFunctionNode final : public autograd::Node {
 public:
  PyFunctionNode(std::string name, nb::object backward, nb::object release)
      : name_(std::move(name)), backward_(hold(std::move(backward))), release_(hold(std::move(release))) {}
  std::vector<Tensor> apply(std::vector<Tensor>&& grads) override {
    nb::gil_scoped_acquire gil;
    nb::list gl;
    for (auto& g : grads) gl.append(g ? nb::cast(g) : nb::none());
    nb::object r = (*backward_)(nb::tuple(gl));
    std::vector<Tensor> out;
    for (nb::handle h : r) out.push_back(h.is_none() ? nullptr : nb::cast<Tensor>(h));
    LUCID_CHECK(out.size() == next_edges.size(), Generic,
                "function " << name_ << " returned " << out.size() << " gradients, expected " << next_edges.size());
    return out;
  }
  std::string name() const override { return name_; }
  bool release_saved() override {
    nb::gil_scoped_acquire gil;
    return nb::cast<bool>((*release_)());
  }

 private:
  std::string name_;
  std::shared_ptr<nb::object> backward_, release_;
};

}  // namespace

std::string python_trace() {
  nb::gil_scoped_acquire g;
  nb::object lines = nb::module_::import_("traceback").attr("format_stack")();
  std::string out;
  for (nb::handle l : lines) out += nb::cast<std::string>(l);
  return out;
}

void init_autograd(nb::module_& m) {
  m.def("_set_anomaly_enabled", [](bool on, bool check_nan) {
    autograd::set_trace_provider(&python_trace);
    autograd::set_anomaly_enabled(on, check_nan);
  }, nb::arg("enabled"), nb::arg("check_nan") = true);
  m.def("is_anomaly_enabled", &autograd::anomaly_enabled);
  m.def("_push_saved_tensor_hooks", [](nb::object pack, nb::object unpack) {
    auto p = hold(std::move(pack));
    auto u = hold(std::move(unpack));
    autograd::SavedTensorHooks h;
    h.pack = [p](const Tensor& t) -> std::shared_ptr<void> {
      nb::gil_scoped_acquire gil;
      return hold((*p)(nb::cast(t)));
    };
    h.unpack = [u](const std::shared_ptr<void>& packed) -> Tensor {
      nb::gil_scoped_acquire gil;
      return nb::cast<Tensor>((*u)(*static_cast<nb::object*>(packed.get())));
    };
    autograd::push_saved_tensor_hooks(std::move(h));
  });
  m.def("_pop_saved_tensor_hooks", &autograd::pop_saved_tensor_hooks);
  m.def("is_anomaly_check_nan_enabled", &autograd::anomaly_check_nan);
  m.def("_record_function", [](std::string name, nb::object backward, nb::object release, std::vector<Tensor> inputs,
                               std::vector<Tensor> outputs, bool materialize) {
    auto node = std::make_shared<PyFunctionNode>(std::move(name), std::move(backward), std::move(release));
    node->materialize_grads = materialize;
    std::vector<const Tensor*> in, out;
    for (auto& t : inputs) in.push_back(&t);
    for (auto& t : outputs) out.push_back(&t);
    autograd::set_history(node, in, out);
  });
  m.def("is_grad_enabled", &autograd::grad_enabled);
  m.def("_set_grad_enabled", &autograd::set_grad_enabled);
  m.def("is_inference_mode_enabled", &autograd::inference_mode);
  m.def("_set_inference_mode", &autograd::set_inference_mode);
  m.def("live_tensor_count", &TensorImpl::live_count);

  nb::class_<autograd::Node>(m, "Node")
      .def("name", &autograd::Node::name)
      .def_prop_ro("next_functions", [](const autograd::Node& n) {
        nb::list l;
        for (auto& e : n.next_edges) l.append(nb::make_tuple(e.fn ? nb::cast(e.fn) : nb::none(), e.input_nr));
        return nb::tuple(l);
      })
      .def("__repr__", [](const autograd::Node& n) { return "<" + n.name() + ">"; });

  nb::class_<HookHandle>(m, "RemovableHandle")
      .def("remove", &HookHandle::remove)
      .def_prop_ro("id", [](const HookHandle& h) { return h.id; });

  auto cls = nb::borrow<nb::class_<TensorImpl>>(m.attr("Tensor"));
  cls.def_prop_ro("grad_fn", [](const TensorImpl& t) -> std::shared_ptr<autograd::Node> {
        return t.autograd_meta() ? t.autograd_meta()->grad_fn : nullptr;
      })
      .def_prop_ro("output_nr", [](const TensorImpl& t) { return t.autograd_meta() ? t.autograd_meta()->output_nr : 0u; })
      .def("register_hook", [](const Tensor& t, nb::object fn) {
        LUCID_CHECK(autograd::requires_grad(t), Generic,
                    "cannot register a hook on a tensor that doesn't require gradient");
        HookHandle h;
        h.id = g_next_hook_id++;
        auto& meta = t->ensure_autograd_meta();
        if (meta.grad_fn) {
          h.node = meta.grad_fn;
          h.slot = meta.output_nr;
          meta.grad_fn->hooks_of(meta.output_nr).emplace_back(h.id, wrap_hook(std::move(fn)));
        } else {
          h.leaf = t;
          meta.hooks.emplace_back(h.id, wrap_hook(std::move(fn)));
        }
        return h;
      }, nb::arg("hook"))
      .def("retain_grad", [](const Tensor& t) {
        LUCID_CHECK(autograd::requires_grad(t), Generic, "can't retain_grad on Tensor that has requires_grad=False");
        auto& meta = t->ensure_autograd_meta();
        if (!meta.grad_fn) return;  // a leaf keeps its gradient anyway
        meta.retains_grad = true;
        meta.grad_fn->retained_of(meta.output_nr) = t;
      })
      .def("detach_", [](const Tensor& t) {
        if (auto* m = t->autograd_meta()) {
          m->grad_fn.reset();  // spec 001: drops the backward function, keeps the meta
          m->requires_grad = false;
          m->output_nr = 0;
        }
        return t;
      });

  m.def("_run_backward", [](std::vector<Tensor> roots, std::vector<Tensor> grads, std::vector<Tensor> inputs,
                            bool keep_graph, bool create_graph, bool accumulate, bool allow_unused) {
    autograd::BackwardOptions o;
    o.keep_graph = keep_graph;
    o.create_graph = create_graph;
    o.accumulate = accumulate;
    o.allow_unused = allow_unused;
    nb::gil_scoped_release nogil;  // hooks take the GIL back when they call into Python
    return autograd::run_backward(roots, grads, inputs, o);
  });
}

}  // namespace lucid::py
