#include "gen/tracegenerator.h"

#include "gen/faultcheck.h"
#include "gen/rng.h"
#include "gen/sink.h"
#include "gen/streams.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <exception>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace linkscope::gen {

namespace {

// ---------------------------------------------------------------------------------------------
// What can appear.

constexpr int kFunctionScope = 0;
constexpr int kBackwardScope = 1;
constexpr int kUserScope = 7;

enum class IoStyle : std::uint8_t { None, Tensors, Comm, NcclAnnotation, ProcessGroupInit };

struct OpKind {
    std::string_view name;
    std::string_view schema;
    bool user; // user_annotation (USER_SCOPE) rather than cpu_op
    int scope;
    IoStyle io;
    int tensorInputs; // IoStyle::Tensors
    int outputs;
    std::string_view scalarType; // one optional trailing scalar input
    std::string_view scalarValue;
};

// clang-format off
const OpKind kProfilerStep {"ProfilerStep#", "", true, kUserScope, IoStyle::None, 0, 0, {}, {}};
const OpKind kForwardBlock {"## forward ##", "", true, kUserScope, IoStyle::None, 0, 0, {}, {}};
const OpKind kBackwardBlock{"## backward ##", "", true, kUserScope, IoStyle::None, 0, 0, {}, {}};
const OpKind kAttention    {"attention_block[\xce\xbb=0.1]", "", true, kUserScope, IoStyle::None, 0, 0, {}, {}};
const OpKind kCompiledGraph{"## Call CompiledFxGraph fq3ygbtjxk ##", "", true, kUserScope, IoStyle::None, 0, 0, {}, {}};
const OpKind kOptimizerStep{"Optimizer.step#SGD.step", "", true, kUserScope, IoStyle::None, 0, 0, {}, {}};
const OpKind kPgInit       {"## process_group:init ##", "", true, kUserScope, IoStyle::ProcessGroupInit, 0, 0, {}, {}};
const OpKind kTriton       {"triton_poi_fused_add_mul_0", "", true, kUserScope, IoStyle::None, 0, 0, {}, {}};
const OpKind kNcclAllReduce{"nccl:all_reduce", "", true, kUserScope, IoStyle::NcclAnnotation, 0, 0, {}, {}};
const OpKind kNcclAllGather{"nccl:_all_gather_base", "", true, kUserScope, IoStyle::NcclAnnotation, 0, 0, {}, {}};

const OpKind kCompiledFunction{"CompiledFunction", "", false, kFunctionScope, IoStyle::Tensors, 2, 1, {}, {}};
const OpKind kTo         {"aten::to", "aten::to.dtype_layout(Tensor(a) self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, bool non_blocking=False, bool copy=False, MemoryFormat? memory_format=None) -> Tensor(a)", false, kFunctionScope, IoStyle::Tensors, 1, 1, "Bool", "true"};
const OpKind kToCopy     {"aten::_to_copy", "aten::_to_copy(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, bool non_blocking=False, MemoryFormat? memory_format=None) -> Tensor", false, kFunctionScope, IoStyle::Tensors, 1, 1, "Bool", "true"};
const OpKind kEmptyStrided{"aten::empty_strided", "aten::empty_strided(SymInt[] size, SymInt[] stride, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor", false, kFunctionScope, IoStyle::Tensors, 0, 1, "Device", "cuda:0"};
const OpKind kCopy       {"aten::copy_", "aten::copy_(Tensor(a!) self, Tensor src, bool non_blocking=False) -> Tensor(a!)", false, kFunctionScope, IoStyle::Tensors, 2, 1, "Bool", "true"};
const OpKind kLinear     {"aten::linear", "aten::linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor", false, kFunctionScope, IoStyle::Tensors, 3, 1, {}, {}};
const OpKind kT          {"aten::t", "aten::t(Tensor(a) self) -> Tensor(a)", false, kFunctionScope, IoStyle::Tensors, 1, 1, {}, {}};
const OpKind kAddmm      {"aten::addmm", "aten::addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) -> Tensor", false, kFunctionScope, IoStyle::Tensors, 3, 1, "Int", "1"};
const OpKind kRelu       {"aten::relu", "aten::relu(Tensor self) -> Tensor", false, kFunctionScope, IoStyle::Tensors, 1, 1, {}, {}};
const OpKind kClampMin   {"aten::clamp_min", "aten::clamp_min(Tensor self, Scalar min) -> Tensor", false, kFunctionScope, IoStyle::Tensors, 1, 1, "Int", "0"};
const OpKind kLayerNorm  {"aten::layer_norm", "aten::layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight=None, Tensor? bias=None, float eps=1e-05, bool cudnn_enable=True) -> Tensor", false, kFunctionScope, IoStyle::Tensors, 3, 1, "Double", "1.0000000000000001e-05"};
const OpKind kNativeLayerNorm{"aten::native_layer_norm", "aten::native_layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight, Tensor? bias, float eps) -> (Tensor, Tensor, Tensor)", false, kFunctionScope, IoStyle::Tensors, 3, 1, "Double", "1.0000000000000001e-05"};
const OpKind kEmpty      {"aten::empty", "aten::empty.memory_format(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor", false, kFunctionScope, IoStyle::Tensors, 0, 1, "Device", "cuda:0"};
const OpKind kEmptyLike  {"aten::empty_like", "aten::empty_like(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor", false, kFunctionScope, IoStyle::Tensors, 1, 1, {}, {}};
const OpKind kMatmul     {"aten::matmul", "aten::matmul(Tensor self, Tensor other) -> Tensor", false, kFunctionScope, IoStyle::Tensors, 2, 1, {}, {}};
const OpKind kExpand     {"aten::expand", "aten::expand(Tensor(a) self, SymInt[] size, *, bool implicit=False) -> Tensor(a)", false, kFunctionScope, IoStyle::Tensors, 1, 1, "Bool", "false"};
const OpKind kBmm        {"aten::bmm", "aten::bmm(Tensor self, Tensor mat2) -> Tensor", false, kFunctionScope, IoStyle::Tensors, 2, 1, {}, {}};
const OpKind kSoftmax    {"aten::softmax", "aten::softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor", false, kFunctionScope, IoStyle::Tensors, 1, 1, "Int", "-1"};
const OpKind kSoftmaxImpl{"aten::_softmax", "aten::_softmax(Tensor self, int dim, bool half_to_float) -> Tensor", false, kFunctionScope, IoStyle::Tensors, 1, 1, "Int", "-1"};
const OpKind kZeros      {"aten::zeros", "aten::zeros(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor", false, kFunctionScope, IoStyle::Tensors, 0, 1, "Device", "cuda:0"};
const OpKind kZero       {"aten::zero_", "aten::zero_(Tensor(a!) self) -> Tensor(a!)", false, kFunctionScope, IoStyle::Tensors, 1, 1, {}, {}};
const OpKind kMseLoss    {"aten::mse_loss", "aten::mse_loss(Tensor self, Tensor target, int reduction=Mean) -> Tensor", false, kFunctionScope, IoStyle::Tensors, 2, 1, "Int", "1"};
const OpKind kMean       {"aten::mean", "aten::mean(Tensor self, *, ScalarType? dtype=None) -> Tensor", false, kFunctionScope, IoStyle::Tensors, 1, 1, {}, {}};
const OpKind kItem       {"aten::item", "aten::item(Tensor self) -> Scalar", false, kFunctionScope, IoStyle::Tensors, 1, 0, {}, {}};
const OpKind kLocalScalar{"aten::_local_scalar_dense", "aten::_local_scalar_dense(Tensor self) -> Scalar", false, kFunctionScope, IoStyle::Tensors, 1, 0, {}, {}};
const OpKind kForeachAdd {"aten::_foreach_add_", "aten::_foreach_add_.List(Tensor(a!)[] self, Tensor[] other, *, Scalar alpha=1) -> ()", false, kFunctionScope, IoStyle::Tensors, 2, 0, "Double", "-0.01"};
const OpKind kEvalAddmm  {"autograd::engine::evaluate_function: AddmmBackward0", "", false, kFunctionScope, IoStyle::None, 0, 0, {}, {}};
const OpKind kAddmmBack  {"AddmmBackward0", "", false, kBackwardScope, IoStyle::Tensors, 1, 2, {}, {}};
const OpKind kMm         {"aten::mm", "aten::mm(Tensor self, Tensor mat2) -> Tensor", false, kFunctionScope, IoStyle::Tensors, 2, 1, {}, {}};
const OpKind kSum        {"aten::sum", "aten::sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor", false, kFunctionScope, IoStyle::Tensors, 1, 1, "Bool", "true"};
const OpKind kEvalAccum  {"autograd::engine::evaluate_function: torch::autograd::AccumulateGrad", "", false, kFunctionScope, IoStyle::None, 0, 0, {}, {}};
const OpKind kAccumGrad  {"torch::autograd::AccumulateGrad", "", false, kFunctionScope, IoStyle::Tensors, 1, 0, {}, {}};
const OpKind kAddInplace {"aten::add_", "aten::add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)", false, kFunctionScope, IoStyle::Tensors, 2, 1, "Int", "1"};
const OpKind kAllreduceC10d{"c10d::allreduce_", "c10d::allreduce_(Tensor[] tensors, __torch__.torch.classes.c10d.ProcessGroup process_group, __torch__.torch.classes.c10d.ReduceOp reduce_op, Tensor? sparse_indices, int timeout) -> (Tensor[], __torch__.torch.classes.c10d.Work)", false, kFunctionScope, IoStyle::Tensors, 1, 1, "Int", "-1"};
const OpKind kAllgatherC10d{"c10d::_allgather_base_", "c10d::_allgather_base_(Tensor output_tensor, Tensor input_tensor, __torch__.torch.classes.c10d.ProcessGroup process_group, bool async_op=True, int timeout=-1) -> (Tensor, __torch__.torch.classes.c10d.Work)", false, kFunctionScope, IoStyle::Tensors, 2, 1, "Bool", "true"};
const OpKind kRecordParamComms{"record_param_comms", "", false, kFunctionScope, IoStyle::Comm, 0, 0, {}, {}};
const OpKind kSendC10d{"c10d::send", "c10d::send(Tensor[] tensors, __torch__.torch.classes.c10d.ProcessGroup process_group, int dst, int tag) -> __torch__.torch.classes.c10d.Work", false, kFunctionScope, IoStyle::Tensors, 1, 0, "Int", "0"};
const OpKind kRecvC10d{"c10d::recv_", "c10d::recv_(Tensor[] tensors, __torch__.torch.classes.c10d.ProcessGroup process_group, int src, int tag) -> __torch__.torch.classes.c10d.Work", false, kFunctionScope, IoStyle::Tensors, 1, 0, "Int", "0"};
const OpKind kNcclSend{"nccl:send", "", true, kUserScope, IoStyle::NcclAnnotation, 0, 0, {}, {}};
const OpKind kNcclRecv{"nccl:recv", "", true, kUserScope, IoStyle::NcclAnnotation, 0, 0, {}, {}};
// clang-format on

enum class RuntimeId : std::uint8_t {
    LaunchKernel,
    LaunchKernelExC,
    CuLaunchKernel,
    CuLaunchKernelEx,
    MemcpyAsync,
    MemsetAsync,
    GraphLaunch,
    StreamSynchronize,
    DeviceSynchronize,
    EventRecord,
    StreamWaitEvent,
};
struct RuntimeKind {
    std::string_view name;
    int cbid;
    bool driver;
    bool launches; // produces device activity (gets an ac2g flow)
};
constexpr std::array<RuntimeKind, 11> kRuntimes = {{
    {"cudaLaunchKernel", 211, false, true},
    {"cudaLaunchKernelExC", 430, false, true},
    {"cuLaunchKernel", 307, true, true},
    {"cuLaunchKernelEx", 652, true, true},
    {"cudaMemcpyAsync", 41, false, true},
    {"cudaMemsetAsync", 51, false, true},
    {"cudaGraphLaunch", 311, false, true},
    {"cudaStreamSynchronize", 131, false, false},
    {"cudaDeviceSynchronize", 165, false, false},
    {"cudaEventRecord", 135, false, false},
    {"cudaStreamWaitEvent", 146, false, false},
}};

constexpr std::string_view kGemmKernel =
    "sm90_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize128x128x32_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas";
constexpr std::string_view kGemmNNKernel = "ampere_sgemm_128x64_nn";
constexpr std::string_view kClampKernel =
    "void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous "
    "namespace)::launch_clamp_scalar(at::TensorIteratorBase&, c10::Scalar, c10::Scalar, "
    "at::native::detail::ClampLimits)::{lambda()#1}::operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1}, "
    "at::detail::Array<char*, 2> >(int, at::native::(anonymous namespace)::launch_clamp_scalar(at::TensorIteratorBase&, "
    "c10::Scalar, c10::Scalar, at::native::detail::ClampLimits)::{lambda()#1}::operator()() const::{lambda()#7}::operator()() "
    "const::{lambda(float)#1}, at::detail::Array<char*, 2>)";
constexpr std::string_view kLayerNormKernel =
    "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float>(int, float, float const*, float const*, "
    "float const*, float*, float*, float*)";
constexpr std::string_view kBmmKernel = "ampere_sgemm_64x64_nn";
constexpr std::string_view kSoftmaxKernel = "void (anonymous namespace)::softmax_warp_forward<float, float, float, 10, false, "
                                            "false>(float*, float const*, int, int, int, bool const*, int, bool)";
constexpr std::string_view kTritonKernel = "triton_poi_fused_add_mul_0";
constexpr std::string_view kMseKernel =
    "void at::native::vectorized_elementwise_kernel<4, "
    "at::native::mse_kernel_cuda(at::TensorIterator&)::{lambda()#1}::operator()() const::{lambda()#2}::operator()() "
    "const::{lambda(float, float)#1}, at::detail::Array<char*, 3> >(int, "
    "at::native::mse_kernel_cuda(at::TensorIterator&)::{lambda()#1}::operator()() const::{lambda()#2}::operator()() "
    "const::{lambda(float, float)#1}, at::detail::Array<char*, 3>)";
constexpr std::string_view kReduceKernel =
    "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<float, float, float, float>, "
    "unsigned int, float, 4> >(at::native::ReduceOp<float, at::native::MeanOps<float, float, float, float>, unsigned int, float, "
    "4>)";
constexpr std::string_view kSumKernel =
    "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::func_wrapper_t<float, "
    "at::native::sum_functor<float, float, float>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, "
    "float, 4> >(at::native::ReduceOp<float, at::native::func_wrapper_t<float, at::native::sum_functor<float, float, "
    "float>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, float, 4>)";
constexpr std::string_view kAddKernel =
    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3> >(int, "
    "at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)";
constexpr std::string_view kForeachKernel =
    "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::TensorListMetadata<2>, "
    "at::native::(anonymous namespace)::BinaryOpListAlphaFunctor<float, 2, 2, 0>, std::plus<float>, "
    "float>(at::native::(anonymous namespace)::TensorListMetadata<2>, at::native::(anonymous "
    "namespace)::BinaryOpListAlphaFunctor<float, 2, 2, 0>, std::plus<float>, float)";
constexpr std::array<std::string_view, 5> kGraphKernels = {"triton_red_fused_native_layer_norm_0", "triton_poi_fused_gelu_1",
                                                           "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_cublas",
                                                           "triton_per_fused_add_native_layer_norm_2",
                                                           "triton_poi_fused_clone_3"};
constexpr std::string_view kAllReduceKernel = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)";
constexpr std::string_view kAllGatherKernel = "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)";
constexpr std::string_view kSendRecvKernel = "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)";

constexpr int kWorldSize = 8;
// Job mode: a rank's CPU spends this long in each collective's launch path, the launch a delay into
// it that differs per rank (Generator::arrivalDelay): the natural arrival jitter, which does not add
// up from one collective to the next (a rank that kept its delays would fall further behind at every
// collective and look like a straggler in every group it shares).
constexpr Nanos kArrivalJitter = 200'000;
// A collective's elements come in multiples of this (16 to 8192 of them, floats): 8 KB to 4 MB per
// rank, so that at the network model's default bandwidth the default job's steps are mostly compute.
constexpr std::int64_t kElementsPerUnit = 128;
// A collective's kernel can start this long after its launch call starts (job mode: the rank's arrival).
constexpr Nanos kLaunchLatency = 15'000;
constexpr std::string_view kDirectCopyKernel =
    "void at::native::vectorized_elementwise_kernel<4, "
    "at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#7}::operator()() "
    "const::{lambda(float)#1}, at::detail::Array<char*, 2> >(int, "
    "at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#7}::operator()() "
    "const::{lambda(float)#1}, at::detail::Array<char*, 2>)";

// A job's process group as every member sees it.
struct PgInfo {
    std::string name;
    std::string desc;
    std::vector<int> ranks;
};

enum class GpuCat : std::uint8_t { Kernel, Memcpy, Memset };

// ---------------------------------------------------------------------------------------------
// One step's records, in generation order; ids are assigned afterwards in start order.

struct Tensor {
    std::int64_t id = 0;
    std::int64_t storage = 0;
    std::int64_t offset = 0;
    std::int64_t numel = 1;
    std::int32_t dims[3] = {1, 1, 1};
    std::uint8_t rank = 1;
    std::uint8_t itemsize = 4;
    std::uint8_t device = 0;
};

struct CpuOp {
    Nanos ts = 0;
    Nanos end = 0;
    const OpKind *kind = nullptr;
    int nameIndex = -1; // into Step::names when the name is not the kind's
    int thread = 0;
    int parent = -1; // enclosing op on the same thread (this step), -1 = thread top level
    int depth = 0;
    int device = 0;
    std::int64_t seqId = -1;
    int forwardOp = -1; // backward ops: the forward op of the same sequence number
    int collective = -1;
    std::int64_t externalId = 0;
    std::int64_t rfId = 0;
    std::int64_t evIdx = 0;
    std::int64_t etId = 0;
    std::uint32_t tensorBegin = 0;
    std::uint8_t inputs = 0;
    std::uint8_t outputs = 0;
    bool hasChildOp = false;
    bool noHostNode = false; // in Kineto (with its rf_id) but absent from the host ET
    bool dropped = false;    // job fault: the rank skipped the collective this op belongs to
};

struct RuntimeCall {
    Nanos ts = 0;
    Nanos dur = 0;
    RuntimeId kind = RuntimeId::LaunchKernel;
    int thread = 0;
    int truthParent = -1;    // innermost enclosing op that is not ProfilerStep#N
    int externalOp = -1;     // innermost enclosing cpu_op (what Kineto's External id names)
    int latestStarting = -1; // latest-starting op on the thread before the call (ProfilerStep excluded)
    std::int64_t correlation = 0;
    bool dropped = false;
};

struct GpuOp {
    Nanos ts = 0;
    Nanos dur = 0;
    std::string_view name;
    GpuCat cat = GpuCat::Kernel;
    int device = 0;
    int stream = kComputeStream;
    int launch = -1;
    int collective = -1;
    std::int64_t bytes = 0;
    std::int64_t graphId = -1;
    std::int64_t graphNode = -1;
    int grid = 1;
    int block = 128;
    int registers = 32;
    int sharedMemory = 0;
    bool dropped = false;
};

struct Collective {
    std::string_view name; // "allreduce", "_allgather_base", "send", "recv"
    std::int64_t inNelems = 0;
    std::int64_t outNelems = 0;
    std::int64_t seq = 0;
    int group = -1; // job mode: index into Generator::groups_ (-1: the single-process default group)
    int peer = -1;  // send/recv: the other rank
};

struct FlowPair {
    int forwardOp;
    int backwardOp;
    std::int64_t id = 0;
};

struct ThreadState {
    std::int64_t osTid = 0;
    int etTid = 0;
    std::string label;
    Nanos cursor = 0;
    std::vector<int> stack;
    int lastStarted = -1;
    bool rootAssigned = false;
    std::int64_t rootId = 0;
    Nanos rootEntry = 0;
    bool rootPending = false; // root id assigned in this step, node not yet written
};

struct StreamClock {
    int device;
    int stream;
    Nanos free = 0;
};

// One collective of a job as every member sees it: the process group's name and the position on it
// (p2p: the pair's ranks, low and high, and the position among the rank's sends and receives there).
struct Instance {
    std::string group;
    int low = -1;
    int high = -1;
    int index = 0;
    auto operator<=>(const Instance &) const = default;
};
// Job mode: the true time (rank 0's clock) each collective instance's kernels start on every member.
using StartTable = std::map<Instance, Nanos>;

// A compute-stream wait not yet emitted: the compute stream of the thread's next compute launch
// waits for collectives launched before (cudaStreamWaitEvent on their end event).
struct PendingWait {
    bool active = false;
    bool real = false; // false when every awaited collective was dropped by a fault
    Nanos until = 0;
};

class Generator {
public:
    // `schedule`: job mode, the collective start times every rank of the job agrees on (null: each
    // collective starts when this rank is ready for it).
    Generator(const GeneratorOptions &options, std::ostream &host, std::ostream &kineto, std::ostream &truth,
              const StartTable *schedule = nullptr)
        : opt_(options), rng_(options.seed), host_(host), kineto_(kineto), truth_(truth), schedule_(schedule),
          scales_(options, std::max(options.rank, 0))
    {
        opt_.devices = std::clamp(opt_.devices, 1, 2);
        opt_.layers = std::max(opt_.layers, 1);
        if (job()) {
            opt_.devices = 1;
            opt_.worldSize = std::max(opt_.worldSize, opt_.rank + 1);
            opt_.pid += opt_.rank;
            buildGroups();
        }
        // Relative timestamps as large as real traces' (≈ 4.5e12 µs): a double cannot hold them to the ns.
        origin_ = 4'458'676'000'000'000LL + rng_.range(0, 999'999'999'999LL);
        if (job())
            origin_ += clockOffsetNs(opt_.seed, opt_.rank);
        threads_.push_back({opt_.pid, 1, "python3.10", origin_, {}, -1});
        for (int d = 0; d < opt_.devices; ++d)
            threads_.push_back({opt_.pid + 7 + 3 * d, 2 + d, "pt_autograd_" + std::to_string(d), origin_, {}, -1});
        for (int d = 0; d < opt_.devices; ++d)
            for (int s : deviceStreams(opt_))
                clocks_.push_back({d, s, origin_});
        etCounter_ = 2; // 1 is the process root
        rfCounter_ = 1 + rng_.range(40, 400);
        externalCounter_ = 1;
        correlationCounter_ = 1 + rng_.range(1000, 20000);
        pending_.resize(threads_.size());
        bucketWait_.resize(threads_.size());
        const int traceRank = job() ? opt_.rank : 0;
        double delayMs = 0;
        for (const GeneratorOptions::RankDelay &d : opt_.rankDelays)
            if (d.rank == traceRank)
                delayMs += d.ms;
        stepDelay_ = static_cast<Nanos>(std::llround(delayMs * 1e6));
    }

    GeneratorStats run()
    {
        begin();
        const int wanted = opt_.steps > 0 ? opt_.steps : (bySize() ? -1 : 1);
        for (int i = 0; wanted < 0 || i < wanted; ++i) {
            buildStep(i);
            endStep();
            if (wanted < 0 && targetReached())
                break;
        }
        return finish();
    }

    // The same run in pieces, for the job schedule (generateJob): begin, then per step buildStep
    // (again after restore() as often as needed) and endStep, then finish.
    bool bySize() const { return opt_.targetKinetoBytes > 0 || opt_.targetKinetoEvents > 0; }
    bool targetReached() const
    {
        return kineto_.bytes() >= opt_.targetKinetoBytes && stats_.kinetoEvents >= opt_.targetKinetoEvents;
    }
    // Nothing is formatted: only what later steps depend on is computed (ids, tensors, the draws).
    void setSimulateOnly(bool on) { simulateOnly_ = on; }
    // With a schedule, every collective this rank is ready for later than the schedule says is an error.
    void setCheckSchedule(bool on) { checkSchedule_ = on; }

    void begin()
    {
        if (simulateOnly_)
            return;
        for (Sink *s : {&host_, &kineto_, &truth_})
            s->reserve();
        writeHeaders();
    }

    void endStep()
    {
        flushStep();
        ++stats_.steps;
    }

    GeneratorStats finish()
    {
        if (!simulateOnly_)
            writeFooters();
        host_.flush();
        kineto_.flush();
        truth_.flush();
        stats_.hostBytes = host_.bytes();
        stats_.kinetoBytes = kineto_.bytes();
        stats_.truthBytes = truth_.bytes();
        return stats_;
    }

    // What buildStep changes and reads again later: saved before a step, restored to build it again.
    struct StepStart {
        Rng rng{0};
        std::vector<ThreadState> threads;
        std::vector<StreamClock> clocks;
        std::vector<PendingWait> pending, bucketWait;
        GeneratorStats stats;
        int currentDevice = 0;
        std::int64_t seqCounter = 0;
        std::int64_t collectiveSeq = 0;
        std::map<std::string, int> collIndex, p2pIndex, recvIndex;
        std::map<std::string, std::int64_t> seqIssued;
        std::uint64_t arrivals = 0;
    };
    StepStart snapshot() const
    {
        return {rng_,        threads_,       clocks_,    pending_,  bucketWait_, stats_,     currentDevice_,
                seqCounter_, collectiveSeq_, collIndex_, p2pIndex_, recvIndex_,  seqIssued_, arrivals_};
    }
    void restore(const StepStart &s)
    {
        rng_ = s.rng;
        threads_ = s.threads;
        clocks_ = s.clocks;
        pending_ = s.pending;
        bucketWait_ = s.bucketWait;
        stats_ = s.stats;
        currentDevice_ = s.currentDevice;
        seqCounter_ = s.seqCounter;
        collectiveSeq_ = s.collectiveSeq;
        collIndex_ = s.collIndex;
        p2pIndex_ = s.p2pIndex;
        recvIndex_ = s.recvIndex;
        seqIssued_ = s.seqIssued;
        arrivals_ = s.arrivals;
    }

    // Job mode: this rank's arrival (true time) at each collective instance it issued in the last
    // buildStep: when its kernel could have started had no other member been late.
    const std::vector<std::pair<Instance, Nanos>> &arrivals() const { return ready_; }

    void buildStep(int stepIndex) { buildStepBody(stepIndex); }
    // Job mode: the rank's groups and the positions it issued on each (faults do not change them).
    RankPlan plan() const
    {
        RankPlan p{{}, collIndex_, recvIndex_};
        for (const PgInfo &g : groups_)
            p.groups.push_back({g.name, g.desc, g.ranks});
        return p;
    }

private:
    bool job() const { return opt_.rank >= 0; }
    Nanos trueTime(Nanos local) const { return local - (job() ? clockOffsetNs(opt_.seed, opt_.rank) : 0); }
    Nanos localTime(Nanos trueNs) const { return trueNs + (job() ? clockOffsetNs(opt_.seed, opt_.rank) : 0); }
    // The fork/join and copy events of --compute-streams / --copy-stream (none by default).
    bool streamEvents() const { return opt_.computeStreams > 1 || opt_.copyStream; }

    void buildGroups()
    {
        const int world = opt_.worldSize;
        const int tp = resolvedTensorParallel(opt_);
        PgInfo all{"0", "default_pg", {}};
        for (int r = 0; r < world; ++r)
            all.ranks.push_back(r);
        groups_.push_back(std::move(all));
        if (tp > 1) {
            const int g = opt_.rank / tp;
            PgInfo tpGroup{std::to_string(1 + g), "tensor_parallel", {}};
            for (int r = g * tp; r < g * tp + tp; ++r)
                tpGroup.ranks.push_back(r);
            const int j = opt_.rank % tp;
            PgInfo dpGroup{std::to_string(1 + world / tp + j), "data_parallel", {}};
            for (int r = j; r < world; r += tp)
                dpGroup.ranks.push_back(r);
            groups_.push_back(std::move(tpGroup));
            groups_.push_back(std::move(dpGroup));
            tpGroup_ = 1;
            dpGroup_ = 2;
        }
    }

    // The CPU time this rank spends just before launching its collective number `k` (a gap in the
    // nccl:* annotation; kArrivalJitter − this follows the launch), different on every rank: the
    // jitter in the ranks' arrivals. The straggler's delays are larger, so it arrives last at most
    // collectives. No random draw (a hash).
    Nanos arrivalDelay(std::uint64_t k) const
    {
        const std::uint64_t h = mix(opt_.seed * 1000003ULL
                                    ^ mix(static_cast<std::uint64_t>(opt_.rank) * 7919ULL + k * 104729ULL));
        if (opt_.straggler < 0)
            return static_cast<Nanos>(h % kArrivalJitter);
        if (opt_.straggler == opt_.rank)
            return kArrivalJitter * 2 / 5 + static_cast<Nanos>(h % (kArrivalJitter * 3 / 5));
        return static_cast<Nanos>(h % (kArrivalJitter * 3 / 5));
    }

    // ---------------------------------------------------------------- building one step

    Nanos gap(Nanos lo, Nanos hi) { return rng_.range(lo, hi); }
    Nanos cpuGap(Nanos lo, Nanos hi) { return scales_.cpu(rng_.range(lo, hi)); } // CPU time: --cpu-scale

    int open(int thread, const OpKind &kind, int nameIndex = -1, bool sameStartAsParent = false)
    {
        ThreadState &t = threads_[thread];
        CpuOp op;
        op.kind = &kind;
        op.nameIndex = nameIndex;
        op.thread = thread;
        op.parent = t.stack.empty() ? -1 : t.stack.back();
        op.depth = static_cast<int>(t.stack.size());
        op.device = currentDevice_;
        op.ts = (sameStartAsParent && op.parent >= 0) ? ops_[op.parent].ts : t.cursor;
        const int index = static_cast<int>(ops_.size());
        if (op.parent >= 0)
            ops_[op.parent].hasChildOp = true;
        ops_.push_back(op);
        t.stack.push_back(index);
        if (kind.name != kProfilerStep.name)
            t.lastStarted = index;
        t.cursor = op.ts + cpuGap(300, 1500);
        return index;
    }

    void close(int thread)
    {
        ThreadState &t = threads_[thread];
        CpuOp &op = ops_[t.stack.back()];
        t.stack.pop_back();
        op.end = t.cursor + cpuGap(200, 900);
        // More than the linker's 1 µs enclosure tolerance before anything else starts on the thread,
        // so the ground truth is unambiguous under the linkage rule (docs/linking.md) even for a launch right after a finished op.
        t.cursor = op.end + cpuGap(1200, 3000);
    }

    void leaf(int thread, const OpKind &kind)
    {
        open(thread, kind);
        threads_[thread].cursor += cpuGap(500, 4000);
        close(thread);
    }

    int call(int thread, RuntimeId kind, Nanos minDur = 0)
    {
        ThreadState &t = threads_[thread];
        RuntimeCall rc;
        rc.kind = kind;
        rc.thread = thread;
        rc.ts = t.cursor;
        rc.dur = std::max(minDur, cpuGap(2500, 8000));
        for (auto it = t.stack.rbegin(); it != t.stack.rend(); ++it) {
            const CpuOp &op = ops_[*it];
            if (rc.truthParent < 0 && op.kind->name != kProfilerStep.name)
                rc.truthParent = *it;
            if (rc.externalOp < 0 && !op.kind->user)
                rc.externalOp = *it;
        }
        rc.latestStarting = t.lastStarted;
        t.cursor = rc.ts + rc.dur + cpuGap(600, 2000);
        calls_.push_back(rc);
        return static_cast<int>(calls_.size()) - 1;
    }

    StreamClock &clock(int device, int stream)
    {
        for (StreamClock &c : clocks_)
            if (c.device == device && c.stream == stream)
                return c;
        return clocks_.front();
    }

    // `at` >= 0: the op starts then (the caller saw to the stream being free); the two gaps are drawn anyway.
    GpuOp &gpu(int launch, GpuCat cat, std::string_view name, int device, int stream, Nanos dur, Nanos notBefore = 0,
               Nanos at = -1)
    {
        StreamClock &c = clock(device, stream);
        GpuOp g;
        g.launch = launch;
        g.cat = cat;
        g.name = name;
        g.device = device;
        g.stream = stream;
        if (at < 0)
            c.free = std::max(c.free, events_.takeWait(calls_[launch].thread)); // a cudaStreamWaitEvent before the launch
        const Nanos afterLaunch = calls_[launch].ts + gap(4000, 15000);
        const Nanos afterPrevious = c.free + gap(800, 3000);
        g.ts = at >= 0 ? at : std::max({afterLaunch, afterPrevious, notBefore});
        g.dur = dur;
        c.free = g.ts + g.dur;
        g.grid = static_cast<int>(rng_.range(1, 1320));
        g.block = 128 << rng_.range(0, 3);
        g.registers = static_cast<int>(rng_.range(16, 128));
        g.sharedMemory = static_cast<int>(rng_.range(0, 4)) * 8192;
        if (at < 0)
            events_.launched(calls_[launch].thread, stream, c.free);
        gpuOps_.push_back(g);
        return gpuOps_.back();
    }

    // A non-NCCL kernel: drawn in [lo, hi], then scaled by --compute-scale.
    void kernel(int thread, RuntimeId api, std::string_view name, Nanos lo, Nanos hi, int stream = kComputeStream)
    {
        if (stream == kComputeStream)
            emitPendingWait(thread);
        const int rc = call(thread, api);
        gpu(rc, GpuCat::Kernel, name, currentDevice_, stream, scales_.kernel(gap(lo, hi), name));
    }

    // Before a compute-stream launch: the cudaStreamWaitEvent that makes the compute stream wait for
    // the collectives awaited since the last one (work.wait()). The linker pairs it with the thread's
    // last cudaEventRecord before it (the awaited collective's end event, recorded right after its
    // launch) and the thread's first launch after it (this one).
    void emitPendingWait(int thread) { emitWait(thread, pending_[thread]); }
    void emitBucketWait(int thread) { emitWait(thread, bucketWait_[thread]); }
    void emitWait(int thread, PendingWait &p)
    {
        if (!p.active)
            return;
        const int rc = call(thread, RuntimeId::StreamWaitEvent);
        calls_[rc].dropped = !p.real;
        if (p.real) {
            StreamClock &c = clock(currentDevice_, kComputeStream);
            c.free = std::max(c.free, p.until);
        }
        p = PendingWait{};
    }

    // --compute-streams / --copy-stream: a cudaEventRecord standing for the thread's last launch, and a
    // cudaStreamWaitEvent making the stream of its next launch wait for it (gen/streams.h).
    void recordEvent(int thread)
    {
        call(thread, RuntimeId::EventRecord);
        events_.record(thread);
    }
    void waitEvent(int thread)
    {
        call(thread, RuntimeId::StreamWaitEvent);
        events_.wait(thread);
    }

    // The join: right after the side stream's last launch, so the record stands for it; the thread's
    // next launch, whatever its stream, waits.
    void join(int thread)
    {
        recordEvent(thread);
        waitEvent(thread);
    }

    int addName(std::string text)
    {
        names_.push_back(std::move(text));
        return static_cast<int>(names_.size()) - 1;
    }

    // aten::to → aten::_to_copy → {aten::empty_strided, aten::copy_ → cudaMemcpyAsync H2D}
    void hostToDevice(int t)
    {
        open(t, kTo);
        open(t, kToCopy);
        leaf(t, kEmptyStrided); // finished before the launch: the latest-starting trap
        open(t, kCopy);
        const int stream = opt_.copyStream ? kCopyStream : kComputeStream;
        if (stream == kComputeStream)
            emitPendingWait(t);
        const int rc = call(t, RuntimeId::MemcpyAsync);
        GpuOp &g = gpu(rc, GpuCat::Memcpy, "Memcpy HtoD (Pinned -> Device)", currentDevice_, stream, gap(3000, 40000));
        g.bytes = 4 * 2048 * rng_.range(1, 64);
        if (stream == kCopyStream) { // the thread's next launch waits for the copy
            recordEvent(t);
            waitEvent(t);
        }
        close(t);
        close(t);
        close(t);
    }

    void forwardLayer(int t, int layer, int stepIndex)
    {
        // aten::linear → {aten::t (finished), aten::addmm → cudaLaunchKernel}
        open(t, kLinear);
        leaf(t, kT);
        const int addmm = open(t, kAddmm);
        ops_[addmm].seqId = seqCounter_++;
        forwardAddmm_.push_back(addmm);
        kernel(t, RuntimeId::LaunchKernel, kGemmKernel, 20000, 400000);
        // --compute-streams: the side stream forks after the GEMM (after the clamp with --copy-stream)
        // and runs the layer norm (odd layers) or the attention block (even layers) while stream 7
        // runs what comes before them.
        const bool fork = opt_.computeStreams > 1;
        const int side = fork ? sideStream(opt_, layer) : kComputeStream;
        if (fork && !opt_.copyStream)
            recordEvent(t);
        close(t);
        close(t);
        if (opt_.copyStream)
            hostToDevice(t); // the next layer's weights, prefetched on the copy stream; the clamp waits

        // aten::relu and aten::clamp_min start at the same nanosecond: ties resolve to the shorter op.
        open(t, kRelu);
        open(t, kClampMin, -1, true);
        kernel(t, RuntimeId::LaunchKernel, kClampKernel, 2000, 30000);
        if (fork && opt_.copyStream)
            recordEvent(t);
        close(t);
        close(t);

        // aten::layer_norm → aten::native_layer_norm → {aten::empty (finished), launch}
        open(t, kLayerNorm);
        open(t, kNativeLayerNorm);
        leaf(t, kEmpty);
        if (rng_.percent(50))
            leaf(t, kEmpty);
        const int normStream = layer % 2 == 1 ? side : kComputeStream;
        if (normStream != kComputeStream)
            waitEvent(t); // the fork
        kernel(t, RuntimeId::LaunchKernel, kLayerNormKernel, 3000, 40000, normStream);
        if (normStream != kComputeStream)
            join(t);
        close(t);
        close(t);

        if (layer % 2 == 0) {
            // A record_function block holding aten ops 2 levels deeper.
            open(t, kAttention);
            open(t, kMatmul);
            leaf(t, kExpand);
            open(t, kBmm);
            if (fork)
                waitEvent(t); // the fork
            kernel(t, RuntimeId::LaunchKernel, kBmmKernel, 10000, 200000, side);
            close(t);
            close(t);
            open(t, kSoftmax);
            open(t, kSoftmaxImpl);
            kernel(t, RuntimeId::LaunchKernel, kSoftmaxKernel, 3000, 60000, side);
            if (fork)
                join(t);
            close(t);
            close(t);
            close(t);
        }
        if (layer % 3 == 1) {
            // An Inductor kernel: the launch sits in a user annotation inside a cpu_op, so the kernel's
            // External id names CompiledFunction while the true parent is the annotation.
            open(t, kCompiledFunction);
            leaf(t, kEmptyStrided);
            open(t, kTriton);
            kernel(t, RuntimeId::CuLaunchKernel, kTritonKernel, 2000, 20000);
            close(t);
            close(t);
        }
        if (layer == 1 || (layer % 4 == 3)) {
            // aten::zeros → {aten::empty (finished), aten::zero_ → cudaMemsetAsync}
            open(t, kZeros);
            leaf(t, kEmpty);
            open(t, kZero);
            emitPendingWait(t);
            const int rc = call(t, RuntimeId::MemsetAsync);
            GpuOp &g = gpu(rc, GpuCat::Memset, "Memset (Device)", currentDevice_, kComputeStream, gap(1000, 6000));
            g.bytes = 4096 * rng_.range(1, 512);
            close(t);
            close(t);
        }
        if (layer == 0 && (stepIndex % 2 == 0 || opt_.steps == 1)) {
            // FSDP-style all-gather: c10d::_allgather_base_ ⊃ record_param_comms(X) ⊃ nccl:_all_gather_base(X+1)
            // ⊃ {aten::empty (finished), cuLaunchKernelEx}.
            collective(t, kAllgatherC10d, kNcclAllGather, "_allgather_base", RuntimeId::CuLaunchKernelEx, kAllGatherKernel,
                       job() ? 0 : -1);
        }
        if (job() && tpGroup_ >= 0) {
            // Megatron-style tensor-parallel all-reduce of the layer's output: the next layer's
            // kernels (the compute stream) wait for it.
            collective(t, kAllreduceC10d, kNcclAllReduce, "allreduce", RuntimeId::LaunchKernelExC, kAllReduceKernel, tpGroup_, -1,
                       false, true);
        }
    }

    // `group`: index into groups_ (job mode), -1 for the single-process trace. `peer`: send/recv.
    // `waitSide`: the wait-side record_param_comms follows (no device work). `awaited`: the thread's
    // next compute-stream launch waits for this collective (emitPendingWait); `bucket`: DDP's
    // finalize waits for it (emitBucketWait), the backward kernels in between do not.
    //
    // The kernel starts when every member is ready for it: on each member, the launch call's start
    // + kLaunchLatency, the comm stream free and the compute work it waits for done; the latest of
    // those over the members (the schedule, in true time) is its start on every member. It lasts
    // the network model's time (collectiveTransferNs × --comm-scale).
    void collective(int t, const OpKind &c10dOp, const OpKind &annotation, std::string_view collectiveName, RuntimeId api,
                    std::string_view kernelName, int group = -1, int peer = -1, bool waitSide = false, bool awaited = false,
                    bool bucket = false)
    {
        const std::size_t opsBefore = ops_.size(), callsBefore = calls_.size(), gpuBefore = gpuOps_.size();
        Collective c;
        c.name = collectiveName;
        c.group = group;
        c.peer = peer;
        bool drop = false;
        std::int64_t groupSize = kWorldSize;
        Instance instance;
        if (group < 0) {
            c.inNelems = kElementsPerUnit * rng_.range(16, 8192);
            c.seq = ++collectiveSeq_;
        } else {
            // Sizes are a function of (seed, group, position): every member computes the same.
            const PgInfo &pg = groups_[group];
            groupSize = static_cast<std::int64_t>(pg.ranks.size());
            const bool p2p = peer >= 0;
            const bool recv = collectiveName == "recv";
            const int index = p2p ? p2pIndex_[pg.name]++ : collIndex_[pg.name]++;
            const int recvIndex = recv ? recvIndex_[pg.name]++ : -1;
            instance.group = pg.name;
            instance.index = index;
            if (p2p) {
                instance.low = std::min(opt_.rank, peer);
                instance.high = std::max(opt_.rank, peer);
            }
            int sizeIndex = index;
            bool resize = false;
            for (const GeneratorFault &f : opt_.faults) {
                if (f.rank != opt_.rank || f.processGroup != pg.name)
                    continue;
                using K = GeneratorFault::Kind;
                if (!p2p && f.kind == K::Skip && f.index == index)
                    drop = true;
                if (!p2p && f.kind == K::Resize && f.index == index)
                    resize = true;
                if (!p2p && f.kind == K::Swap && f.index == index)
                    sizeIndex = index + 1;
                if (!p2p && f.kind == K::Swap && f.index + 1 == index)
                    sizeIndex = index - 1;
                if (recv && f.kind == K::DropRecv && f.index == recvIndex)
                    drop = true;
            }
            // SPMD: every group of one kind (every tensor-parallel group, every data-parallel group,
            // every send/recv pair) moves the same sizes at the same position, as the same layers do.
            std::uint64_t key = mix(opt_.seed) ^ hashText(pg.desc);
            if (p2p)
                key = mix(key ^ 0x9292ULL);
            key = mix(key + static_cast<std::uint64_t>(sizeIndex));
            c.inNelems = kElementsPerUnit * (16 + static_cast<std::int64_t>(key % 8177));
            if (resize)
                c.inNelems *= 2;
            // PyTorch's per-group sequence number counts what the rank issued.
            c.seq = drop ? -1 : seqIssued_[pg.name]++;
        }
        c.outNelems = collectiveName == "_allgather_base" ? c.inNelems * groupSize : c.inNelems;
        collectives_.push_back(c);
        const int ci = static_cast<int>(collectives_.size()) - 1;

        open(t, c10dOp);
        // The comm stream waits for the compute stream: an event record + stream wait, no device op.
        const Nanos owed = events_.takeWait(t); // a join or copy wait just before: the comm stream waits too
        recordEvent(t);
        waitEvent(t);
        // With side streams and copies the record stands for the thread's last launch, as the trace tells it.
        const Nanos recorded = std::max(owed, events_.takeWait(t));
        const Nanos computeDone = streamEvents() ? recorded : clock(currentDevice_, kComputeStream).free;
        const int rpc = open(t, kRecordParamComms);
        ops_[rpc].collective = ci;
        const int anno = open(t, annotation);
        ops_[anno].collective = ci;
        if (rng_.percent(60))
            leaf(t, kEmpty);
        // Job mode: the rank's CPU spends kArrivalJitter in the launch path, the launch `delay` into it:
        // its arrival jitter. Real CPU time on both sides of the launch, so the jitter does not add up.
        const Nanos delay = job() ? arrivalDelay(arrivals_++) : 0;
        threads_[t].cursor += scales_.cpu(delay);
        const int rc = call(t, api);
        gap(30000, 3000000); // the duration drawn before the network model: still drawn, so every later draw is the same
        StreamClock &comm = clock(currentDevice_, kCommStream);
        const Nanos commFreeBefore = comm.free;
        const Nanos ready = std::max({calls_[rc].ts + kLaunchLatency, comm.free, computeDone});
        Nanos start = ready;
        if (job()) {
            // Not in the schedule: the first pass over the step, or no member issues it.
            if (const auto agreed = schedule_ ? schedule_->find(instance) : StartTable::const_iterator{};
                schedule_ && agreed != schedule_->end()) {
                if (checkSchedule_ && !drop && trueTime(ready) > agreed->second)
                    throw std::logic_error("linkscope-gen: rank " + std::to_string(opt_.rank) + " is ready for collective "
                                           + std::to_string(instance.index) + " on group " + instance.group
                                           + " after the start the job's schedule gives it");
                start = std::max(start, localTime(agreed->second));
            }
            if (!drop)
                ready_.emplace_back(instance, trueTime(ready));
        }
        const std::int64_t bytes = 4 * (collectiveName == "_allgather_base" ? c.outNelems : c.inNelems);
        GpuOp &g = gpu(
            rc, GpuCat::Kernel, kernelName, currentDevice_, kCommStream,
            collectiveTransferNs(collectiveName, groupSize, bytes, opt_.netBandwidthGBps, opt_.netLatencyUs, opt_.commScale), 0,
            start);
        g.collective = ci;
        g.grid = 8;
        g.block = 544;
        g.registers = 96;
        g.sharedMemory = 87568;
        const Nanos end = g.ts + g.dur;
        if (!drop)
            events_.launched(t, kCommStream, end);
        // ProcessGroupNCCL records the collective's end event on the comm stream right after the launch.
        call(t, RuntimeId::EventRecord);
        if (job())
            threads_[t].cursor += scales_.cpu(kArrivalJitter - delay);
        close(t);
        close(t);
        close(t);
        if (waitSide) {
            leaf(t, kRecordParamComms); // the wait-side record_param_comms: no device work
            ops_.back().collective = ci;
        }
        if (drop) {
            for (std::size_t i = opsBefore; i < ops_.size(); ++i)
                ops_[i].dropped = true;
            for (std::size_t i = callsBefore; i < calls_.size(); ++i)
                calls_[i].dropped = true;
            for (std::size_t i = gpuBefore; i < gpuOps_.size(); ++i)
                gpuOps_[i].dropped = true;
            comm.free = commFreeBefore; // no kernel
            events_.owe(t, owed);       // nor a launch for the wait before it
        } else {
            ++stats_.collectives;
        }
        if (awaited || bucket) {
            PendingWait &p = bucket ? bucketWait_[t] : pending_[t];
            p.active = true;
            if (!drop) {
                p.real = true;
                p.until = std::max(p.until, end);
            }
        }
    }

    void backwardLayer(int t, int layer)
    {
        const int fwd = layer < static_cast<int>(forwardAddmm_.size()) ? forwardAddmm_[layer] : -1;
        const int eval = open(t, kEvalAddmm);
        const int back = open(t, kAddmmBack);
        if (fwd >= 0) {
            ops_[eval].seqId = ops_[fwd].seqId;
            ops_[back].seqId = ops_[fwd].seqId;
            ops_[back].forwardOp = fwd;
            flows_.push_back({fwd, eval});
        }
        // --compute-streams: the second mm runs on a side stream. It forks before the first mm when the
        // thread's last launch was on stream 7 (the two mm overlap), else after it; AccumulateGrad's
        // add waits for the join.
        const bool fork = opt_.computeStreams > 1;
        const int side = fork ? sideStream(opt_, layer + 1) : kComputeStream;
        const bool forkFirst = fork && events_.lastStream(t) == kComputeStream;
        if (forkFirst)
            recordEvent(t);
        leaf(t, kT);
        open(t, kMm);
        kernel(t, RuntimeId::LaunchKernel, kGemmNNKernel, 20000, 400000);
        if (fork && !forkFirst)
            recordEvent(t);
        close(t);
        leaf(t, kT);
        open(t, kMm);
        if (fork)
            waitEvent(t);
        kernel(t, RuntimeId::LaunchKernel, kGemmKernel, 20000, 400000, side);
        if (fork)
            recordEvent(t);
        close(t);
        open(t, kSum);
        kernel(t, RuntimeId::LaunchKernel, kSumKernel, 3000, 30000);
        close(t);
        close(t);
        close(t);

        open(t, kEvalAccum);
        open(t, kAccumGrad);
        open(t, kAddInplace);
        if (fork)
            waitEvent(t); // the join
        kernel(t, RuntimeId::LaunchKernel, kAddKernel, 2000, 30000);
        close(t);
        close(t);
        close(t);
    }

    void buildStepBody(int stepIndex)
    {
        ready_.clear();
        for (PendingWait &p : pending_)
            p = PendingWait{};
        for (PendingWait &p : bucketWait_)
            p = PendingWait{};
        ops_.clear();
        calls_.clear();
        gpuOps_.clear();
        names_.clear();
        collectives_.clear();
        flows_.clear();
        forwardAddmm_.clear();
        for (ThreadState &t : threads_)
            t.lastStarted = -1;
        events_.reset(threads_.size());

        const int main = 0;
        currentDevice_ = 0;
        if (stepIndex == 0)
            leaf(main, kPgInit);
        open(main, kProfilerStep, addName("ProfilerStep#" + std::to_string(opt_.firstStep + stepIndex)));
        threads_[main].cursor += stepDelay_; // --delay-rank: Python time before the step's first op

        for (int d = 0; d < opt_.devices; ++d) {
            currentDevice_ = d;
            hostToDevice(main);
        }

        open(main, kForwardBlock);
        std::vector<int> layerDevice(opt_.layers);
        for (int l = 0; l < opt_.layers; ++l) {
            layerDevice[l] = l * opt_.devices / opt_.layers;
            currentDevice_ = layerDevice[l];
            forwardLayer(main, l, stepIndex);
        }
        if (job() && opt_.worldSize % 2 == 0) {
            // Pipeline-style hand-over on the default group: rank 2k sends to 2k+1.
            const bool sender = opt_.rank % 2 == 0;
            currentDevice_ = 0;
            // work.wait() on both sides: the compute stream waits for the transfer.
            collective(main, sender ? kSendC10d : kRecvC10d, sender ? kNcclSend : kNcclRecv, sender ? "send" : "recv",
                       RuntimeId::LaunchKernel, kSendRecvKernel, 0, sender ? opt_.rank + 1 : opt_.rank - 1, false, true);
        }
        // A CUDA graph replay: one cudaGraphLaunch, several kernels, one correlation, no External id
        // (only user annotations enclose it).
        currentDevice_ = 0;
        open(main, kCompiledGraph);
        {
            const int rc = call(main, RuntimeId::GraphLaunch, scales_.cpu(9000));
            const int kernels = static_cast<int>(rng_.range(3, 5));
            const std::int64_t graphId = 1 + (stepIndex % 3);
            for (int k = 0; k < kernels; ++k) {
                GpuOp &g = gpu(rc, GpuCat::Kernel, kGraphKernels[k], 0, kGraphStream,
                               scales_.kernel(gap(3000, 50000), kGraphKernels[k]));
                g.graphId = graphId;
                g.graphNode = 100 * graphId + k;
            }
            ++stats_.graphLaunches;
        }
        close(main);
        close(main); // ## forward ##

        currentDevice_ = layerDevice.back();
        open(main, kMseLoss);
        leaf(main, kEmptyLike);
        kernel(main, RuntimeId::LaunchKernel, kMseKernel, 2000, 20000);
        open(main, kMean);
        kernel(main, RuntimeId::LaunchKernel, kReduceKernel, 2000, 20000);
        close(main);
        close(main);

        // Backward: one autograd thread per device runs at the same time as the others while the main
        // thread sits in a record_function block (enclosing, in time, launches of other threads).
        open(main, kBackwardBlock);
        Nanos backwardEnd = threads_[main].cursor;
        for (int d = 0; d < opt_.devices; ++d) {
            const int t = 1 + d;
            currentDevice_ = d;
            threads_[t].cursor = threads_[main].cursor + scales_.cpu(gap(3000, 9000) + d * gap(1000, 5000));
            int sinceBucket = 0;
            bool buckets = false;
            for (int l = opt_.layers - 1; l >= 0; --l) {
                if (layerDevice[l] != d)
                    continue;
                backwardLayer(t, l);
                if (++sinceBucket == 2 || l == 0 || layerDevice[l - 1] != d) {
                    // DDP bucket all-reduce from the autograd thread:
                    // c10d::allreduce_ ⊃ record_param_comms(X) ⊃ nccl:all_reduce(X+1) ⊃ cudaLaunchKernelExC.
                    collective(t, kAllreduceC10d, kNcclAllReduce, "allreduce", RuntimeId::LaunchKernelExC, kAllReduceKernel,
                               job() ? dpGroup_ : -1, -1, true, false, true);
                    sinceBucket = 0;
                    buckets = true;
                }
            }
            if (buckets) {
                // DDP's finalize_backward on the autograd thread: work.wait() on the buckets (the compute
                // stream waits for the last all-reduce), then the reduced gradients are copied out of the
                // buckets; the optimizer's kernels follow on the compute stream.
                open(t, kCopy);
                emitBucketWait(t);
                kernel(t, RuntimeId::LaunchKernel, kDirectCopyKernel, 2000, 30000);
                close(t);
            }
            backwardEnd = std::max(backwardEnd, threads_[t].cursor);
        }
        threads_[main].cursor = backwardEnd + cpuGap(2000, 6000);
        close(main);

        open(main, kOptimizerStep);
        for (int d = 0; d < opt_.devices; ++d) {
            currentDevice_ = d;
            open(main, kForeachAdd);
            const int launches = static_cast<int>(rng_.range(1, 3));
            for (int k = 0; k < launches; ++k)
                kernel(main, RuntimeId::LaunchKernel, kForeachKernel, 5000, 80000);
            close(main);
        }
        close(main);

        // loss.item(): a device-to-host copy and a blocking stream sync.
        currentDevice_ = 0;
        open(main, kItem);
        open(main, kLocalScalar);
        {
            emitPendingWait(main);
            const int rc = call(main, RuntimeId::MemcpyAsync);
            GpuOp &g = gpu(rc, GpuCat::Memcpy, "Memcpy DtoH (Device -> Pinned)", 0, kComputeStream, gap(1500, 3000));
            g.bytes = 4;
            const Nanos waitUntil = clock(0, kComputeStream).free;
            // Blocked until the copy ends (not scaled by --cpu-scale), then the call's own tail.
            call(main, RuntimeId::StreamSynchronize,
                 std::max(scales_.cpu(3000), waitUntil - threads_[main].cursor + scales_.cpu(1500)));
        }
        close(main);
        close(main);
        // torch.cuda.synchronize(): a runtime call directly under ProfilerStep#N, no device op.
        {
            Nanos waitUntil = 0;
            for (const StreamClock &c : clocks_)
                if (c.device == 0)
                    waitUntil = std::max(waitUntil, c.free);
            call(main, RuntimeId::DeviceSynchronize,
                 std::max(scales_.cpu(3000), waitUntil - threads_[main].cursor + scales_.cpu(2000)));
        }
        close(main); // ProfilerStep#N

        // Steps never overlap: every thread and stream starts the next one after this one ended.
        Nanos stepEnd = threads_[main].cursor;
        for (const StreamClock &c : clocks_)
            stepEnd = std::max(stepEnd, c.free);
        stepEnd += cpuGap(20000, 120000);
        for (ThreadState &t : threads_)
            t.cursor = stepEnd;
    }

    // ---------------------------------------------------------------- ids, tensors, output

    std::string_view opName(const CpuOp &op) const
    {
        return op.nameIndex >= 0 ? std::string_view(names_[op.nameIndex]) : op.kind->name;
    }

    Tensor newTensor(int device, const Tensor *likeShape, bool shareStorage)
    {
        Tensor t;
        t.id = etCounter_++;
        if (shareStorage && likeShape) {
            t.storage = likeShape->storage;
            t.offset = 0;
        } else {
            t.storage = etCounter_++;
        }
        if (likeShape) {
            std::copy(std::begin(likeShape->dims), std::end(likeShape->dims), std::begin(t.dims));
            t.rank = likeShape->rank;
        } else {
            static constexpr std::int32_t kSizes[] = {4, 16, 128, 512, 1024, 2048, 4096};
            t.rank = static_cast<std::uint8_t>(rng_.range(1, 3));
            for (int i = 0; i < t.rank; ++i)
                t.dims[i] = kSizes[rng_.range(0, 6)];
        }
        t.numel = 1;
        for (int i = 0; i < t.rank; ++i)
            t.numel *= t.dims[i];
        t.itemsize = 4;
        t.device = static_cast<std::uint8_t>(device);
        return t;
    }

    void assignTensors(CpuOp &op)
    {
        op.tensorBegin = static_cast<std::uint32_t>(tensors_.size());
        int inputs = 0;
        int outputs = 0;
        if (op.kind->io == IoStyle::Tensors) {
            inputs = op.kind->tensorInputs;
            outputs = op.kind->outputs;
        } else if (op.kind->io == IoStyle::Comm || op.kind->io == IoStyle::NcclAnnotation) {
            inputs = 1;
        }
        for (int i = 0; i < inputs; ++i) {
            if (!recent_.empty() && rng_.percent(60)) {
                Tensor t = recent_[rng_.next() % recent_.size()];
                t.device = static_cast<std::uint8_t>(op.device);
                tensors_.push_back(t);
            } else {
                tensors_.push_back(newTensor(op.device, nullptr, false));
            }
        }
        for (int o = 0; o < outputs; ++o) {
            const Tensor *like = inputs > 0 ? &tensors_[op.tensorBegin] : nullptr;
            Tensor t = newTensor(op.device, like, like && rng_.percent(30));
            tensors_.push_back(t);
            if (recent_.size() < 48)
                recent_.push_back(t);
            else
                recent_[rng_.next() % recent_.size()] = t;
        }
        op.inputs = static_cast<std::uint8_t>(inputs);
        op.outputs = static_cast<std::uint8_t>(outputs);
    }

    void assignIds()
    {
        // The profiler and the ET observer number ops at entry: start order across threads, a parent
        // before the child that starts at the same nanosecond.
        order_.resize(ops_.size());
        for (std::size_t i = 0; i < ops_.size(); ++i)
            order_[i] = static_cast<int>(i);
        std::sort(order_.begin(), order_.end(), [&](int a, int b) {
            const CpuOp &x = ops_[a], &y = ops_[b];
            if (x.ts != y.ts)
                return x.ts < y.ts;
            if (x.thread != y.thread)
                return x.thread < y.thread;
            return x.depth < y.depth;
        });
        tensors_.clear();
        for (int index : order_) {
            CpuOp &op = ops_[index];
            ThreadState &t = threads_[op.thread];
            if (!t.rootAssigned) {
                t.rootAssigned = true;
                t.rootPending = true;
                t.rootId = etCounter_++;
                t.rootEntry = op.ts;
            }
            op.etId = etCounter_++;
            op.externalId = externalCounter_++;
            op.evIdx = evIdxCounter_++;
            op.rfId = rfCounter_++;
            // RecordFunctions outside the profiler's view still take handles and correlation ids.
            if (rng_.percent(3))
                rfCounter_ += rng_.range(1, 3);
            if (rng_.percent(2))
                externalCounter_ += rng_.range(1, 2);
            assignTensors(op);
        }
        // CUPTI numbers every API call in call order (blocklisted calls included, hence gaps).
        std::vector<int> callOrder(calls_.size());
        for (std::size_t i = 0; i < calls_.size(); ++i)
            callOrder[i] = static_cast<int>(i);
        std::sort(callOrder.begin(), callOrder.end(), [&](int a, int b) {
            if (calls_[a].ts != calls_[b].ts)
                return calls_[a].ts < calls_[b].ts;
            return calls_[a].thread < calls_[b].thread;
        });
        for (int index : callOrder) {
            calls_[index].correlation = correlationCounter_;
            correlationCounter_ += rng_.percent(20) ? rng_.range(2, 6) : 1;
        }
        for (FlowPair &f : flows_)
            f.id = flowCounter_++;
        // Ops the ET observer missed (it started late, or filtered them): only ops without child ops,
        // under a parent other than ProfilerStep#N, so the rest of the ET stays a tree and the truth
        // walks up to an ancestor that has a node (docs/linking.md, The linkage rule, step 4).
        if (opt_.missingHostNodePercent > 0)
            for (CpuOp &op : ops_)
                if (!op.hasChildOp && op.parent >= 0 && ops_[op.parent].kind != &kProfilerStep
                    && rng_.percent(opt_.missingHostNodePercent))
                    op.noHostNode = true;
    }

    void flushStep()
    {
        assignIds();
        if (simulateOnly_) {
            for (ThreadState &t : threads_)
                t.rootPending = false;
            return;
        }
        writeKinetoStep();
        writeHostStep();
    }

    // ---- Kineto

    void eventSeparator()
    {
        kineto_ << (firstEvent_ ? "\n  {" : ",\n  {");
        firstEvent_ = false;
        ++stats_.kinetoEvents;
    }

    void writeTensorDims(const Tensor &t)
    {
        kineto_ << '[';
        for (int i = 0; i < t.rank; ++i) {
            if (i)
                kineto_ << ", ";
            kineto_.num(t.dims[i]);
        }
        kineto_ << ']';
    }

    static std::string rankList(const std::vector<int> &ranks)
    {
        std::string text = "[";
        for (std::size_t i = 0; i < ranks.size(); ++i)
            text += (i ? ", " : "") + std::to_string(ranks[i]);
        return text + "]";
    }

    void writeCollectiveArgs(Sink &s, const Collective &c)
    {
        s << ", \"Collective name\": ";
        s.str(c.name);
        s << ", \"In msg nelems\": ";
        s.num(c.inNelems);
        s << ", \"Out msg nelems\": ";
        s.num(c.outNelems);
        s << ", \"Group size\": ";
        if (c.group < 0) {
            s.num(kWorldSize);
            s << ", \"dtype\": \"Float\", \"In split size\": \"[]\", \"Out split size\": \"[]\", "
                 "\"Process Group Name\": \"0\", \"Process Group Description\": \"default_pg\", "
                 "\"Process Group Ranks\": \"[0, 1, 2, 3, 4, 5, 6, 7]\", \"Seq\": ";
            s.num(c.seq);
            return;
        }
        const PgInfo &pg = groups_[c.group];
        s.num(static_cast<std::int64_t>(pg.ranks.size()));
        s << ", \"dtype\": \"Float\", \"In split size\": \"[]\", \"Out split size\": \"[]\", \"Process Group Name\": ";
        s.str(pg.name);
        s << ", \"Process Group Description\": ";
        s.str(pg.desc);
        s << ", \"Process Group Ranks\": ";
        s.str(rankList(pg.ranks));
        if (c.peer >= 0) {
            const bool send = c.name == "send";
            s << ", \"Src Rank\": ";
            s.num(send ? opt_.rank : c.peer);
            s << ", \"Dst Rank\": ";
            s.num(send ? c.peer : opt_.rank);
        }
        s << ", \"Seq\": ";
        s.num(c.seq);
    }

    void writeCpuEvent(const CpuOp &op)
    {
        const ThreadState &t = threads_[op.thread];
        eventSeparator();
        kineto_ << "\n    \"ph\": \"X\", \"cat\": \"" << (op.kind->user ? "user_annotation" : "cpu_op") << "\", \"name\": ";
        kineto_.str(opName(op));
        kineto_ << ", \"pid\": ";
        kineto_.num(opt_.pid);
        kineto_ << ", \"tid\": ";
        kineto_.num(t.osTid);
        kineto_ << ",\n    \"ts\": ";
        kineto_.micros(op.ts);
        kineto_ << ", \"dur\": ";
        kineto_.micros(op.end - op.ts);
        kineto_ << ",\n    \"args\": {\n      \"External id\": ";
        kineto_.num(op.externalId);
        kineto_ << ", \"Record function id\": ";
        kineto_.num(op.rfId);
        if (op.seqId >= 0) {
            kineto_ << ", \"Sequence number\": ";
            kineto_.num(op.seqId);
        }
        if (op.thread != 0) {
            kineto_ << ", \"Fwd thread id\": 1";
        }
        kineto_ << ", \"Ev Idx\": ";
        kineto_.num(op.evIdx);
        if (op.inputs > 0 || op.kind->scalarType.size()) {
            kineto_ << ", \"Input Dims\": [";
            for (int i = 0; i < op.inputs; ++i) {
                if (i)
                    kineto_ << ", ";
                writeTensorDims(tensors_[op.tensorBegin + i]);
            }
            if (op.kind->scalarType.size())
                kineto_ << (op.inputs ? ", []" : "[]");
            kineto_ << "], \"Input type\": [";
            for (int i = 0; i < op.inputs; ++i)
                kineto_ << (i ? ", \"float\"" : "\"float\"");
            if (op.kind->scalarType.size())
                kineto_ << (op.inputs ? ", \"Scalar\"" : "\"Scalar\"");
            kineto_ << "]";
        }
        if (op.kind->io == IoStyle::Comm && op.collective >= 0) {
            writeCollectiveArgs(kineto_, collectives_[op.collective]);
            kineto_ << ", \"Rank\": ";
            kineto_.num(job() ? opt_.rank : 0);
        }
        kineto_ << "\n    }\n  }";
    }

    void writeRuntimeEvent(const RuntimeCall &rc)
    {
        const RuntimeKind &k = kRuntimes[static_cast<int>(rc.kind)];
        const ThreadState &t = threads_[rc.thread];
        eventSeparator();
        kineto_ << "\n    \"ph\": \"X\", \"cat\": \"" << (k.driver ? "cuda_driver" : "cuda_runtime") << "\", \"name\": \""
                << k.name << "\", \"pid\": ";
        kineto_.num(opt_.pid);
        kineto_ << ", \"tid\": ";
        kineto_.num(t.osTid);
        kineto_ << ",\n    \"ts\": ";
        kineto_.micros(rc.ts);
        kineto_ << ", \"dur\": ";
        kineto_.micros(rc.dur);
        kineto_ << ",\n    \"args\": {\n      ";
        if (rc.externalOp >= 0) {
            kineto_ << "\"External id\": ";
            kineto_.num(ops_[rc.externalOp].externalId);
            kineto_ << ", ";
        }
        kineto_ << "\"cbid\": ";
        kineto_.num(k.cbid);
        kineto_ << ", \"correlation\": ";
        kineto_.num(rc.correlation);
        kineto_ << "\n    }\n  }";
        ++stats_.runtimeEvents;
        if (k.launches) {
            eventSeparator();
            kineto_ << "\n    \"ph\": \"s\", \"id\": ";
            kineto_.num(rc.correlation);
            kineto_ << ", \"pid\": ";
            kineto_.num(opt_.pid);
            kineto_ << ", \"tid\": ";
            kineto_.num(t.osTid);
            kineto_ << ", \"ts\": ";
            kineto_.micros(rc.ts);
            kineto_ << ",\n    \"cat\": \"ac2g\", \"name\": \"ac2g\"\n  }";
        }
    }

    void writeGpuEvent(const GpuOp &g)
    {
        const RuntimeCall &rc = calls_[g.launch];
        eventSeparator();
        const char *cat = g.cat == GpuCat::Kernel ? "kernel" : g.cat == GpuCat::Memcpy ? "gpu_memcpy" : "gpu_memset";
        kineto_ << "\n    \"ph\": \"X\", \"cat\": \"" << cat << "\", \"name\": ";
        kineto_.str(g.name);
        kineto_ << ", \"pid\": ";
        kineto_.num(g.device);
        kineto_ << ", \"tid\": ";
        kineto_.num(g.stream);
        kineto_ << ",\n    \"ts\": ";
        kineto_.micros(g.ts);
        kineto_ << ", \"dur\": ";
        kineto_.micros(g.dur);
        kineto_ << ",\n    \"args\": {\n      ";
        if (rc.externalOp >= 0) {
            kineto_ << "\"External id\": ";
            kineto_.num(ops_[rc.externalOp].externalId);
            kineto_ << ", ";
        }
        if (g.cat == GpuCat::Kernel)
            kineto_ << "\"queued\": 0, ";
        kineto_ << "\"device\": ";
        kineto_.num(g.device);
        kineto_ << ", \"context\": 1, \"stream\": ";
        kineto_.num(g.stream);
        kineto_ << ", \"correlation\": ";
        kineto_.num(rc.correlation);
        if (g.cat == GpuCat::Kernel) {
            kineto_ << ", \"registers per thread\": ";
            kineto_.num(g.registers);
            kineto_ << ", \"shared memory\": ";
            kineto_.num(g.sharedMemory);
            kineto_ << ", \"blocks per SM\": ";
            kineto_.num(g.grid / 132);
            kineto_ << ".";
            kineto_.num(100000 + (g.grid % 132) * 757 % 100000);
            kineto_ << ", \"warps per SM\": ";
            kineto_.num(g.grid * g.block / 32 / 132);
            kineto_ << ".25, \"grid\": [";
            kineto_.num(g.grid);
            kineto_ << ", 1, 1], \"block\": [";
            kineto_.num(g.block);
            kineto_ << ", 1, 1], \"est. achieved occupancy %\": ";
            kineto_.num(std::min(100, g.grid * g.block / 2048));
            if (g.graphId >= 0) {
                kineto_ << ", \"graph id\": ";
                kineto_.num(g.graphId);
                kineto_ << ", \"graph node id\": ";
                kineto_.num(g.graphNode);
            }
            if (g.collective >= 0)
                writeCollectiveArgs(kineto_, collectives_[g.collective]);
        } else {
            kineto_ << ", \"bytes\": ";
            kineto_.num(g.bytes);
            kineto_ << ", \"memory bandwidth (GB/s)\": ";
            kineto_.num(g.bytes / std::max<Nanos>(g.dur, 1));
            kineto_ << ".5";
        }
        kineto_ << "\n    }\n  }";
        eventSeparator();
        kineto_ << "\n    \"ph\": \"f\", \"id\": ";
        kineto_.num(rc.correlation);
        kineto_ << ", \"pid\": ";
        kineto_.num(g.device);
        kineto_ << ", \"tid\": ";
        kineto_.num(g.stream);
        kineto_ << ", \"ts\": ";
        kineto_.micros(g.ts);
        kineto_ << ",\n    \"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\"\n  }";
        ++stats_.gpuOps;
    }

    void writeGpuAnnotations()
    {
        // Kineto mirrors every user annotation that launched device work as a gpu_user_annotation
        // spanning that work, per (device, stream), with the annotation's own External id.
        struct Span {
            int op;
            int device;
            int stream;
            Nanos begin;
            Nanos end;
        };
        std::vector<Span> spans;
        for (const GpuOp &g : gpuOps_) {
            if (g.dropped)
                continue;
            // The launch's innermost enclosing op and its ancestors.
            for (int o = calls_[g.launch].truthParent; o >= 0; o = ops_[o].parent) {
                if (!ops_[o].kind->user)
                    continue;
                auto it = std::find_if(spans.begin(), spans.end(),
                                       [&](const Span &s) { return s.op == o && s.device == g.device && s.stream == g.stream; });
                if (it == spans.end())
                    spans.push_back({o, g.device, g.stream, g.ts, g.ts + g.dur});
                else {
                    it->begin = std::min(it->begin, g.ts);
                    it->end = std::max(it->end, g.ts + g.dur);
                }
            }
        }
        for (const Span &s : spans) {
            eventSeparator();
            kineto_ << "\n    \"ph\": \"X\", \"cat\": \"gpu_user_annotation\", \"name\": ";
            kineto_.str(opName(ops_[s.op]));
            kineto_ << ", \"pid\": ";
            kineto_.num(s.device);
            kineto_ << ", \"tid\": ";
            kineto_.num(s.stream);
            kineto_ << ",\n    \"ts\": ";
            kineto_.micros(s.begin);
            kineto_ << ", \"dur\": ";
            kineto_.micros(s.end - s.begin);
            kineto_ << ",\n    \"args\": {\n      \"External id\": ";
            kineto_.num(ops_[s.op].externalId);
            kineto_ << "\n    }\n  }";
        }
    }

    void writeFlows()
    {
        for (const FlowPair &f : flows_) {
            for (int side = 0; side < 2; ++side) {
                const CpuOp &op = ops_[side == 0 ? f.forwardOp : f.backwardOp];
                eventSeparator();
                kineto_ << "\n    \"ph\": \"" << (side == 0 ? "s" : "f") << "\", \"id\": ";
                kineto_.num(f.id);
                kineto_ << ", \"pid\": ";
                kineto_.num(opt_.pid);
                kineto_ << ", \"tid\": ";
                kineto_.num(threads_[op.thread].osTid);
                kineto_ << ", \"ts\": ";
                kineto_.micros(op.ts);
                kineto_ << ",\n    \"cat\": \"fwdbwd\", \"name\": \"fwdbwd\"" << (side == 0 ? "" : ", \"bp\": \"e\"") << "\n  }";
            }
        }
    }

    void writeTruthOp(const char *key, int index)
    {
        truth_ << ",\"" << key << "\":";
        if (index < 0) {
            truth_ << "null";
            return;
        }
        const CpuOp &op = ops_[index];
        truth_ << "{\"name\":";
        truth_.str(opName(op));
        truth_ << ",\"cat\":\"" << (op.kind->user ? "user_annotation" : "cpu_op") << "\",\"ev_idx\":";
        truth_.num(op.evIdx);
        truth_ << ",\"rf_id\":";
        truth_.num(op.rfId);
        truth_ << ",\"et_id\":";
        truth_.num(op.etId);
        truth_ << ",\"external_id\":";
        truth_.num(op.externalId);
        truth_ << '}';
    }

    void writeTruth(const GpuOp &g)
    {
        const RuntimeCall &rc = calls_[g.launch];
        truth_ << "{\"pid\":";
        truth_.num(g.device);
        truth_ << ",\"correlation\":";
        truth_.num(rc.correlation);
        truth_ << ",\"name\":";
        truth_.str(g.name);
        truth_ << ",\"cat\":\""
               << (g.cat == GpuCat::Kernel   ? "kernel"
                   : g.cat == GpuCat::Memcpy ? "gpu_memcpy"
                                             : "gpu_memset")
               << "\",\"ts_ns\":";
        truth_.num(g.ts);
        truth_ << ",\"dur_ns\":";
        truth_.num(g.dur);
        truth_ << ",\"device\":";
        truth_.num(g.device);
        truth_ << ",\"stream\":";
        truth_.num(g.stream);
        truth_ << ",\"launch\":{\"name\":\"" << kRuntimes[static_cast<int>(rc.kind)].name << "\",\"pid\":";
        truth_.num(opt_.pid);
        truth_ << ",\"tid\":";
        truth_.num(threads_[rc.thread].osTid);
        truth_ << ",\"ts_ns\":";
        truth_.num(rc.ts);
        truth_ << '}';
        int parent = rc.truthParent;
        while (parent >= 0 && ops_[parent].noHostNode)
            parent = ops_[parent].parent;
        writeTruthOp("parent", parent);
        if (parent != rc.truthParent)
            writeTruthOp("innermost", rc.truthParent);
        writeTruthOp("external_id_op", rc.externalOp);
        writeTruthOp("latest_starting", rc.latestStarting);
        truth_ << "}\n";
    }

    void writeKinetoStep()
    {
        // CPU ops in start order, then runtime calls (with their flow starts), then device activity in
        // time order (with flow ends) and the mirrored annotations: not one global time order, like
        // the real profiler's output.
        for (int index : order_)
            if (!ops_[index].dropped) {
                writeCpuEvent(ops_[index]);
                ++stats_.cpuOps;
            }
        writeFlows();
        for (const RuntimeCall &rc : calls_)
            if (!rc.dropped)
                writeRuntimeEvent(rc);
        std::vector<int> gpuOrder(gpuOps_.size());
        for (std::size_t i = 0; i < gpuOps_.size(); ++i)
            gpuOrder[i] = static_cast<int>(i);
        std::stable_sort(gpuOrder.begin(), gpuOrder.end(), [&](int a, int b) { return gpuOps_[a].ts < gpuOps_[b].ts; });
        for (int index : gpuOrder) {
            if (gpuOps_[index].dropped)
                continue;
            writeGpuEvent(gpuOps_[index]);
            writeTruth(gpuOps_[index]);
        }
        writeGpuAnnotations();
    }

    // ---- host ET

    void writeTensorTuple(const Tensor &t)
    {
        host_ << '[';
        host_.num(t.id);
        host_ << ',';
        host_.num(t.storage);
        host_ << ',';
        host_.num(t.offset);
        host_ << ',';
        host_.num(t.numel);
        host_ << ',';
        host_.num(t.itemsize);
        host_ << ",\"cuda:";
        host_.num(t.device);
        host_ << "\"]";
    }

    void writeShape(const Tensor &t)
    {
        host_ << '[';
        for (int i = 0; i < t.rank; ++i) {
            if (i)
                host_ << ',';
            host_.num(t.dims[i]);
        }
        host_ << ']';
    }

    void writeStrides(const Tensor &t)
    {
        host_ << '[';
        std::int64_t stride = 1;
        std::int64_t strides[3] = {1, 1, 1};
        for (int i = t.rank - 1; i >= 0; --i) {
            strides[i] = stride;
            stride *= t.dims[i];
        }
        for (int i = 0; i < t.rank; ++i) {
            if (i)
                host_ << ',';
            host_.num(strides[i]);
        }
        host_ << ']';
    }

    void writeIo(const CpuOp &op, bool outputs)
    {
        const std::uint32_t begin = op.tensorBegin + (outputs ? op.inputs : 0);
        const int count = outputs ? op.outputs : op.inputs;
        const bool scalar = !outputs && !op.kind->scalarType.empty();
        host_ << "{\"values\": [";
        if (!outputs && op.kind->io == IoStyle::Comm) {
            // [[tensor], seq, pg ptr, rank, collective, in_split, out_split, world size] (real layout).
            const Collective &c = collectives_[std::max(op.collective, 0)];
            host_ << '[';
            writeTensorTuple(tensors_[begin]);
            host_ << "],";
            host_.num(c.seq);
            host_ << ",";
            host_.num(82149104 + 64 * std::max(c.group, 0));
            host_ << ",";
            host_.num(job() ? opt_.rank : 0);
            host_ << ",";
            host_.str(c.name);
            host_ << ",[],[],";
            host_.num(c.group >= 0 ? static_cast<std::int64_t>(groups_[c.group].ranks.size()) : kWorldSize);
            host_ << "], \"shapes\": [[";
            writeShape(tensors_[begin]);
            host_ << "],[],[],[],[],[],[],[]], \"types\": [\"GenericList[Tensor(float)]\",\"Int\",\"Int\",\"Int\",\"String\","
                     "\"GenericList[]\",\"GenericList[]\",\"Int\"], \"strides\": [[";
            writeStrides(tensors_[begin]);
            host_ << "],[],[],[],[],[],[],[]]}";
            return;
        }
        if (!outputs && op.kind->io == IoStyle::ProcessGroupInit && job()) {
            // The process groups this rank is in, as one JSON string (the observer's layout); the
            // default group's ranks are left empty, as PyTorch writes them.
            std::string groups = "[";
            for (std::size_t i = 0; i < groups_.size(); ++i) {
                const PgInfo &pg = groups_[i];
                groups += (i ? ", " : "");
                groups += "{\"pg_name\": \"" + pg.name + "\", \"pg_desc\": \"" + pg.desc
                          + "\", \"backend_config\": \"cuda:nccl\", \"ranks\": "
                          + (i == 0 ? std::string("[]") : rankList(pg.ranks)) + ", \"group_size\": "
                          + std::to_string(pg.ranks.size()) + ", \"group_count\": " + std::to_string(groups_.size()) + "}";
            }
            groups += "]";
            host_.str(groups);
            host_ << "], \"shapes\": [[]], \"types\": [\"String\"], \"strides\": [[]]}";
            return;
        }
        if (!outputs && op.kind->io == IoStyle::ProcessGroupInit) {
            host_ << "\"[{\\\"pg_name\\\": \\\"0\\\", \\\"pg_desc\\\": \\\"default_pg\\\", \\\"backend_config\\\": "
                     "\\\"cuda:nccl\\\", "
                     "\\\"ranks\\\": [], \\\"group_size\\\": 8, \\\"group_count\\\": 1}]\"], \"shapes\": [[]], \"types\": "
                     "[\"String\"], "
                     "\"strides\": [[]]}";
            return;
        }
        for (int i = 0; i < count; ++i) {
            if (i)
                host_ << ',';
            writeTensorTuple(tensors_[begin + i]);
        }
        if (scalar) {
            if (count)
                host_ << ',';
            if (op.kind->scalarType == "Device" || op.kind->scalarType == "String")
                host_.str(op.kind->scalarValue);
            else
                host_ << op.kind->scalarValue;
        }
        host_ << "], \"shapes\": [";
        for (int i = 0; i < count; ++i) {
            if (i)
                host_ << ',';
            writeShape(tensors_[begin + i]);
        }
        if (scalar)
            host_ << (count ? ",[]" : "[]");
        host_ << "], \"types\": [";
        for (int i = 0; i < count; ++i)
            host_ << (i ? ",\"Tensor(float)\"" : "\"Tensor(float)\"");
        if (scalar) {
            host_ << (count ? ",\"" : "\"") << op.kind->scalarType << '"';
        }
        host_ << "], \"strides\": [";
        for (int i = 0; i < count; ++i) {
            if (i)
                host_ << ',';
            writeStrides(tensors_[begin + i]);
        }
        if (scalar)
            host_ << (count ? ",[]" : "[]");
        host_ << "]}";
    }

    void writeAttrs(std::int64_t rfId, std::int64_t fwParent, std::int64_t seqId, int scope, int tid, int fwTid,
                    std::string_view schema)
    {
        host_ << "      \"attrs\": [{\"name\": \"rf_id\", \"type\": \"uint64\", \"value\": ";
        host_.num(rfId);
        host_ << "}, {\"name\": \"fw_parent\", \"type\": \"uint64\", \"value\": ";
        host_.num(fwParent);
        host_ << "}, {\"name\": \"seq_id\", \"type\": \"int64\", \"value\": ";
        host_.num(seqId);
        host_ << "}, {\"name\": \"scope\", \"type\": \"uint64\", \"value\": ";
        host_.num(scope);
        host_ << "}, {\"name\": \"tid\", \"type\": \"uint64\", \"value\": ";
        host_.num(tid);
        host_ << "}, {\"name\": \"fw_tid\", \"type\": \"uint64\", \"value\": ";
        host_.num(fwTid);
        host_ << "}, {\"name\": \"op_schema\", \"type\": \"string\", \"value\": ";
        host_.str(schema);
        host_ << "}, {\"name\": \"kernel_backend\", \"type\": \"string\", \"value\": \"\"}, {\"name\": \"kernel_file\", "
                 "\"type\": \"string\", \"value\": \"\"}";
    }

    void nodeSeparator()
    {
        host_ << (firstNode_ ? "\n    {\n" : ",\n    {\n");
        firstNode_ = false;
        ++stats_.hostNodes;
    }

    void writeRootNode(std::int64_t id, std::string_view name, std::int64_t parent, int tid)
    {
        nodeSeparator();
        host_ << "      \"id\": ";
        host_.num(id);
        host_ << ", \"name\": ";
        host_.str(name);
        host_ << ", \"ctrl_deps\": ";
        host_.num(parent);
        host_ << ",\n      \"inputs\": {\"values\": [], \"shapes\": [], \"types\": [], \"strides\": []},\n"
                 "      \"outputs\": {\"values\": [], \"shapes\": [], \"types\": [], \"strides\": []},\n";
        writeAttrs(0, 0, -1, kUserScope, tid, 0, "");
        host_ << "]\n    }";
    }

    void writeHostNode(const CpuOp &op)
    {
        const ThreadState &t = threads_[op.thread];
        nodeSeparator();
        host_ << "      \"id\": ";
        host_.num(op.etId);
        host_ << ", \"name\": ";
        host_.str(opName(op));
        host_ << ", \"ctrl_deps\": ";
        host_.num(op.parent >= 0 ? ops_[op.parent].etId : t.rootId);
        host_ << ",\n      \"inputs\": ";
        writeIo(op, false);
        host_ << ",\n      \"outputs\": ";
        writeIo(op, true);
        host_ << ",\n";
        const std::int64_t fwParent = op.forwardOp >= 0 ? ops_[op.forwardOp].etId : 0;
        writeAttrs(op.rfId, fwParent, op.seqId, op.kind->scope, t.etTid, op.thread == 0 ? 0 : 1, op.kind->schema);
        if (op.kind->io == IoStyle::Comm && op.collective >= 0) {
            const Collective &c = collectives_[op.collective];
            host_ << ", {\"name\": \"collective_name\", \"type\": \"string\", \"value\": ";
            host_.str(c.name);
            host_ << "}, {\"name\": \"dtype\", \"type\": \"string\", \"value\": \"Float\"}, {\"name\": \"in_msg_nelems\", "
                     "\"type\": \"uint64\", \"value\": ";
            host_.num(c.inNelems);
            host_ << "}, {\"name\": \"out_msg_nelems\", \"type\": \"uint64\", \"value\": ";
            host_.num(c.outNelems);
            host_ << "}, {\"name\": \"in_split_size\", \"type\": \"string\", \"value\": \"[]\"}, {\"name\": \"out_split_size\", "
                     "\"type\": \"string\", \"value\": \"[]\"}, {\"name\": \"global_rank_start\", \"type\": \"uint64\", "
                     "\"value\": ";
            const PgInfo *pg = c.group >= 0 ? &groups_[c.group] : nullptr;
            host_.num(pg ? pg->ranks.front() : 0);
            host_ << "}, {\"name\": \"global_rank_stride\", \"type\": \"uint64\", \"value\": ";
            host_.num(pg && pg->ranks.size() > 1 ? pg->ranks[1] - pg->ranks[0] : 1);
            host_ << "}, {\"name\": \"pg_name\", \"type\": \"string\", \"value\": ";
            host_.str(pg ? pg->name : "0");
            host_ << "}, {\"name\": \"pg_desc\", \"type\": \"string\", \"value\": ";
            host_.str(pg ? pg->desc : "default_pg");
            host_ << "}, {\"name\": \"pg_size\", \"type\": \"uint64\", \"value\": ";
            host_.num(pg ? static_cast<std::int64_t>(pg->ranks.size()) : kWorldSize);
            host_ << '}';
        }
        host_ << "]\n    }";
    }

    void writeHostStep()
    {
        // The observer writes a node when its op exits (post-order); a thread's root node when the
        // thread is first seen.
        struct Item {
            Nanos time;
            int depth; // deeper exits first at equal time; roots (-1) before everything at their time
            int op;    // -1: root of `thread`
            int thread;
        };
        std::vector<Item> items;
        items.reserve(ops_.size() + threads_.size());
        for (std::size_t i = 0; i < ops_.size(); ++i)
            if (!ops_[i].noHostNode && !ops_[i].dropped)
                items.push_back({ops_[i].end, ops_[i].depth, static_cast<int>(i), ops_[i].thread});
        for (std::size_t t = 0; t < threads_.size(); ++t)
            if (threads_[t].rootPending)
                items.push_back({threads_[t].rootEntry, 1 << 20, -1, static_cast<int>(t)});
        std::sort(items.begin(), items.end(), [](const Item &a, const Item &b) {
            if (a.time != b.time)
                return a.time < b.time;
            if (a.depth != b.depth)
                return a.depth > b.depth;
            return a.thread < b.thread;
        });
        for (const Item &item : items) {
            if (item.op < 0) {
                ThreadState &t = threads_[item.thread];
                writeRootNode(t.rootId, "[pytorch|profiler|execution_trace|thread]", 1, t.etTid);
                t.rootPending = false;
            } else {
                writeHostNode(ops_[item.op]);
            }
        }
    }

    // ---- file frames

    void writeHeaders()
    {
        const std::int64_t startMs = 350785410 + static_cast<std::int64_t>(opt_.seed % 100000);
        host_ << "{\n  \"schema\": \"1.1.1-chakra.0.0.4\", \"pid\": ";
        host_.num(opt_.pid);
        host_ << ", \"time\": \"2026-11-30 11:40:00\", \"start_ts\": ";
        host_.num(startMs);
        host_ << ",\n  \"nodes\": [";
        hostStartMs_ = startMs;

        kineto_ << "{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [";
        for (int d = 0; d < opt_.devices; ++d) {
            kineto_ << (d ? ",\n" : "\n");
            kineto_ << "    {\n      \"id\": ";
            kineto_.num(d);
            kineto_ << ", \"name\": \"NVIDIA H100 80GB HBM3\", \"totalGlobalMem\": 85031714816,\n"
                       "      \"computeMajor\": 9, \"computeMinor\": 0,\n"
                       "      \"maxThreadsPerBlock\": 1024, \"maxThreadsPerMultiprocessor\": 2048,\n"
                       "      \"regsPerBlock\": 65536, \"regsPerMultiprocessor\": 65536, \"warpSize\": 32,\n"
                       "      \"sharedMemPerBlock\": 49152, \"sharedMemPerMultiprocessor\": 233472,\n"
                       "      \"numSms\": 132, \"sharedMemPerBlockOptin\": 232448\n    }";
        }
        if (job()) {
            kineto_ << "\n  ],\n  \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": ";
            kineto_.num(opt_.rank);
            kineto_ << ", \"world_size\": ";
            kineto_.num(opt_.worldSize);
            kineto_ << ", \"pg_count\": ";
            kineto_.num(static_cast<std::int64_t>(groups_.size()));
            kineto_ << ", \"pg_config\": [";
            for (std::size_t i = 0; i < groups_.size(); ++i) {
                kineto_ << (i ? ", " : "") << "{\"pg_name\": ";
                kineto_.str(groups_[i].name);
                kineto_ << ", \"pg_desc\": ";
                kineto_.str(groups_[i].desc);
                kineto_ << ", \"backend_config\": \"cuda:nccl\", \"pg_size\": ";
                kineto_.num(static_cast<std::int64_t>(groups_[i].ranks.size()));
                kineto_ << ", \"ranks\": " << rankList(groups_[i].ranks) << "}";
            }
            kineto_ << "], \"nccl_version\": \"2.21.5\"},\n";
        } else {
            kineto_ << "\n  ],\n  \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 0, \"world_size\": ";
            kineto_.num(kWorldSize);
            kineto_ << ", \"pg_count\": 1, \"pg_config\": [{\"pg_name\": \"0\", \"pg_desc\": \"default_pg\", \"backend_config\": "
                       "\"cuda:nccl\", \"pg_size\": 8, \"ranks\": [0, 1, 2, 3, 4, 5, 6, 7]}], \"nccl_version\": \"2.21.5\"},\n";
        }
        kineto_ << "  \"cupti_version\": 24,\n  \"cuda_runtime_version\": 12060,\n  \"cuda_driver_version\": 12040,\n"
                   "  \"record_shapes\": 1,\n  \"profile_memory\": 0,\n  \"trace_id\": \"";
        static constexpr char kHex[] = "0123456789ABCDEF";
        std::uint64_t id = opt_.seed * 0x9e3779b97f4a7c15ULL + 1;
        for (int i = 0; i < 16; ++i, id >>= 4)
            kineto_ << kHex[id & 15];
        kineto_ << "\",\n  \"displayTimeUnit\": \"ms\",\n  \"baseTimeNanoseconds\": 1764495000000000000,\n  \"traceEvents\": [";
    }

    void writeMetadata(std::string_view name, std::string_view pid, std::string_view tid, std::string_view argKey,
                       std::string_view argValue, bool quoted)
    {
        eventSeparator();
        kineto_ << "\n    \"name\": \"" << name << "\", \"ph\": \"M\", \"ts\": ";
        kineto_.micros(origin_);
        kineto_ << ", \"pid\": " << pid << ", \"tid\": " << tid << ",\n    \"args\": {\n      \"" << argKey << "\": ";
        if (quoted)
            kineto_.str(argValue);
        else
            kineto_ << argValue;
        kineto_ << "\n    }\n  }";
    }

    void writeFooters()
    {
        const std::string pid = std::to_string(opt_.pid);
        writeMetadata("process_name", pid, "0", "name", "python3.10", true);
        writeMetadata("process_labels", pid, "0", "labels", "CPU", true);
        writeMetadata("process_sort_index", pid, "0", "sort_index", "0", false);
        for (const ThreadState &t : threads_) {
            const std::string tid = std::to_string(t.osTid);
            writeMetadata("thread_name", pid, tid, "name", t.label, true);
            writeMetadata("thread_sort_index", pid, tid, "sort_index", tid, false);
        }
        for (int d = 0; d < opt_.devices; ++d) {
            const std::string dev = std::to_string(d);
            writeMetadata("process_name", dev, "0", "name", "GPU " + dev, true);
            writeMetadata("process_labels", dev, "0", "labels", "NVIDIA H100 80GB HBM3", true);
            writeMetadata("process_sort_index", dev, "0", "sort_index", std::to_string(16777216 + d), false);
            for (int s : deviceStreams(opt_)) {
                const std::string stream = std::to_string(s);
                writeMetadata("thread_name", dev, stream, "name", "stream " + stream + " ", true);
                writeMetadata("thread_sort_index", dev, stream, "sort_index", stream, false);
            }
        }
        // The profiler span (pid "Spans") and the iteration marker (pid "Traces"): string pids.
        Nanos end = origin_;
        for (const ThreadState &t : threads_)
            end = std::max(end, t.cursor);
        eventSeparator();
        kineto_ << "\n    \"ph\": \"X\", \"cat\": \"Trace\", \"ts\": ";
        kineto_.micros(origin_ - 5000);
        kineto_ << ", \"dur\": ";
        kineto_.micros(end - origin_ + 5000);
        kineto_ << ",\n    \"pid\": \"Spans\", \"tid\": \"PyTorch Profiler\",\n    \"name\": \"PyTorch Profiler (0)\",\n"
                   "    \"args\": {\n      \"Op count\": 0\n    }\n  }";
        eventSeparator();
        kineto_ << "\n    \"name\": \"Iteration Start: PyTorch Profiler\", \"ph\": \"i\", \"s\": \"g\",\n"
                   "    \"pid\": \"Traces\", \"tid\": \"Trace PyTorch Profiler\", \"ts\": ";
        kineto_.micros(origin_ - 5000);
        kineto_ << "\n  }";
        eventSeparator();
        kineto_ << "\n  \"name\": \"Record Window End\", \"ph\": \"i\", \"s\": \"g\",\n  \"pid\": \"\", \"tid\": \"\", \"ts\": ";
        kineto_.micros(end + 1000);
        kineto_ << "\n  }\n],\n  \"traceName\": \"device.0.json\"\n}\n";

        // The process root is written last, and is its own ctrl_deps (as the observer writes it).
        writeRootNode(1, "[pytorch|profiler|execution_trace|process]", 1, 0);
        host_ << "\n  ],\n  \"finish_ts\": ";
        host_.num(hostStartMs_ + std::max<std::int64_t>(1, (end - origin_) / 1'000'000));
        host_ << "\n}\n";
    }

    GeneratorOptions opt_;
    Rng rng_;
    Sink host_;
    Sink kineto_;
    Sink truth_;
    GeneratorStats stats_;
    const StartTable *schedule_ = nullptr;
    bool simulateOnly_ = false;
    bool checkSchedule_ = false;
    Nanos stepDelay_ = 0;                           // --delay-rank for this rank
    TimeScales scales_;                             // --cpu-scale, --kernel-scale
    StreamEvents events_;                           // --compute-streams, --copy-stream
    std::vector<PendingWait> pending_;              // per thread: for the next compute launch
    std::vector<PendingWait> bucketWait_;           // per thread: for DDP's finalize
    std::vector<std::pair<Instance, Nanos>> ready_; // this step's arrivals (true time)

    Nanos origin_ = 0;
    std::int64_t hostStartMs_ = 0;
    std::vector<ThreadState> threads_;
    std::vector<StreamClock> clocks_;
    int currentDevice_ = 0;

    std::int64_t etCounter_ = 2;
    std::int64_t rfCounter_ = 1;
    std::int64_t externalCounter_ = 1;
    std::int64_t evIdxCounter_ = 0;
    std::int64_t correlationCounter_ = 1;
    std::int64_t seqCounter_ = 0;
    std::int64_t flowCounter_ = 1;
    std::int64_t collectiveSeq_ = 0;

    // Job mode.
    std::vector<PgInfo> groups_; // [0] default; [1] tensor-parallel, [2] data-parallel when tp > 1
    int tpGroup_ = -1;
    int dpGroup_ = 0;
    std::map<std::string, int> collIndex_; // clean position of the next collective per group
    std::map<std::string, int> p2pIndex_;
    std::map<std::string, int> recvIndex_;
    std::map<std::string, std::int64_t> seqIssued_;
    std::uint64_t arrivals_ = 0;

    std::vector<CpuOp> ops_;
    std::vector<RuntimeCall> calls_;
    std::vector<GpuOp> gpuOps_;
    std::deque<std::string> names_;
    std::vector<Collective> collectives_;
    std::vector<FlowPair> flows_;
    std::vector<int> forwardAddmm_;
    std::vector<int> order_;
    std::vector<Tensor> tensors_;
    std::vector<Tensor> recent_;
    bool firstEvent_ = true;
    bool firstNode_ = true;
};

// A job's schedule: the start of every collective instance (true time), found by running every rank
// step by step: each step is built on every rank with the starts known so far, each instance's start
// becomes the latest arrival of the members that issued it, and the step is built again until no start
// changes (a fixed point: a rank's random draws never depend on times, so every pass replays the same
// program; starts only grow, and each pass settles at least one more collective of the step's chain).
// A collective some member does not issue (a fault) starts at the latest arrival of those that do.
struct JobSchedule {
    StartTable start;
    std::vector<RankPlan> plans; // per rank: its groups and positions (checkFaults)
    int steps = 0;
    std::uint64_t passes = 0; // summed over the steps
    int maxStepPasses = 0;
};

// Runs fn(0..n-1), on up to `threads` threads.
template <typename Fn>
void forEachRank(int n, int threads, Fn fn)
{
    threads = std::clamp(threads, 1, n);
    if (threads == 1) {
        for (int r = 0; r < n; ++r)
            fn(r);
        return;
    }
    std::atomic<int> next{0};
    std::exception_ptr failure;
    std::mutex mutex;
    auto worker = [&] {
        for (int r = next++; r < n; r = next++) {
            try {
                fn(r);
            } catch (...) {
                std::lock_guard lock(mutex);
                if (!failure)
                    failure = std::current_exception();
            }
        }
    };
    std::vector<std::thread> pool;
    for (int i = 0; i < threads - 1; ++i)
        pool.emplace_back(worker);
    worker();
    for (std::thread &t : pool)
        t.join();
    if (failure)
        std::rethrow_exception(failure);
}

JobSchedule computeSchedule(const GeneratorOptions &options, int threads)
{
    const int world = std::max({options.worldSize, options.rank + 1, 1});
    const bool bySize = options.steps <= 0 && (options.targetKinetoBytes > 0 || options.targetKinetoEvents > 0);
    const int wanted = options.steps > 0 ? options.steps : (bySize ? -1 : 1);
    JobSchedule schedule;
    // Sink counts what it is given; these streams drop it. Rank 0 (possibly formatted) has its own.
    std::ostream discard(nullptr), discardRank0(nullptr);
    std::vector<std::unique_ptr<Generator>> ranks;
    for (int r = 0; r < world; ++r) {
        GeneratorOptions o = options;
        o.rank = r;
        o.worldSize = world;
        std::ostream &out = r == 0 ? discardRank0 : discard;
        ranks.push_back(std::make_unique<Generator>(o, out, out, out, &schedule.start));
        // Rank 0 decides the number of steps when it is given by size: it alone is formatted (to count).
        ranks.back()->setSimulateOnly(!(bySize && r == 0));
        ranks.back()->begin();
    }
    std::vector<Generator::StepStart> starts(static_cast<std::size_t>(world));
    std::vector<std::vector<std::pair<Instance, Nanos>>> arrivals(static_cast<std::size_t>(world));
    for (int i = 0; wanted < 0 || i < wanted; ++i) {
        forEachRank(world, threads,
                    [&](int r) { starts[static_cast<std::size_t>(r)] = ranks[static_cast<std::size_t>(r)]->snapshot(); });
        for (int pass = 1;; ++pass) {
            forEachRank(world, threads, [&](int r) {
                Generator &g = *ranks[static_cast<std::size_t>(r)];
                if (pass > 1)
                    g.restore(starts[static_cast<std::size_t>(r)]);
                g.buildStep(i);
                arrivals[static_cast<std::size_t>(r)] = g.arrivals();
            });
            StartTable latest;
            for (const auto &rank : arrivals)
                for (const auto &[instance, at] : rank) {
                    auto [it, added] = latest.emplace(instance, at);
                    if (!added)
                        it->second = std::max(it->second, at);
                }
            bool changed = false;
            for (const auto &[instance, at] : latest) {
                auto [it, added] = schedule.start.emplace(instance, at);
                if (added || it->second != at) {
                    it->second = at;
                    changed = true;
                }
            }
            if (!changed) {
                schedule.passes += static_cast<std::uint64_t>(pass);
                schedule.maxStepPasses = std::max(schedule.maxStepPasses, pass);
                break;
            }
            // Each pass settles at least one more instance of the step unless the program waits in a cycle.
            if (pass > static_cast<int>(latest.size()) + 2)
                throw std::logic_error("linkscope-gen: the collective schedule of step " + std::to_string(i)
                                       + " does not settle");
        }
        forEachRank(world, threads, [&](int r) { ranks[static_cast<std::size_t>(r)]->endStep(); });
        schedule.steps = i + 1;
        if (wanted < 0 && ranks.front()->targetReached())
            break;
    }
    for (const auto &rank : ranks)
        schedule.plans.push_back(rank->plan());
    return schedule;
}

std::string scheduleKey(const GeneratorOptions &o)
{
    std::ostringstream key;
    key.precision(17);
    key << o.seed << '|' << o.steps << '|' << o.targetKinetoBytes << '|' << o.targetKinetoEvents << '|' << o.devices << '|'
        << o.layers << '|' << o.pid << '|' << o.firstStep << '|' << o.missingHostNodePercent << '|'
        << std::max(o.worldSize, o.rank + 1) << '|' << o.tensorParallel << '|' << o.straggler << '|' << o.computeScale << '|'
        << o.commScale << '|' << o.netBandwidthGBps << '|' << o.netLatencyUs;
    for (const GeneratorFault &f : o.faults)
        key << "|f" << static_cast<int>(f.kind) << ':' << f.rank << ':' << f.processGroup << ':' << f.index;
    for (const GeneratorOptions::RankDelay &d : o.rankDelays)
        key << "|d" << d.rank << '=' << d.ms;
    key << "|s" << o.computeStreams << o.copyStream << '|' << o.cpuScale;
    for (const GeneratorOptions::RankScale &r : o.cpuRankScales)
        key << "|c" << r.rank << '=' << r.factor;
    for (const GeneratorOptions::KernelScale &k : o.kernelScales)
        key << "|k" << k.factor << '=' << k.pattern;
    return key.str();
}

// generatePair of one rank of a job needs the whole job's schedule: the last few are kept, so that
// generating the ranks one by one computes it once.
std::shared_ptr<const JobSchedule> cachedSchedule(const GeneratorOptions &options)
{
    static std::mutex mutex;
    static std::deque<std::pair<std::string, std::shared_ptr<const JobSchedule>>> cache;
    const std::string key = scheduleKey(options);
    {
        std::lock_guard lock(mutex);
        for (const auto &[k, s] : cache)
            if (k == key)
                return s;
    }
    auto schedule = std::make_shared<const JobSchedule>(computeSchedule(options, 1));
    std::lock_guard lock(mutex);
    cache.emplace_back(key, schedule);
    if (cache.size() > 4)
        cache.pop_front();
    return schedule;
}

GeneratorStats generateRank(const GeneratorOptions &options, const JobSchedule &schedule, std::ostream &host,
                            std::ostream &kineto, std::ostream &truth)
{
    GeneratorOptions o = options;
    o.steps = schedule.steps;
    o.targetKinetoBytes = 0;
    o.targetKinetoEvents = 0;
    Generator generator(o, host, kineto, truth, &schedule.start);
    generator.setCheckSchedule(true);
    GeneratorStats stats = generator.run();
    stats.schedulePasses = schedule.passes;
    stats.maxStepPasses = static_cast<std::uint64_t>(schedule.maxStepPasses);
    return stats;
}

} // namespace

GeneratorStats generatePair(const GeneratorOptions &options, std::ostream &host, std::ostream &kineto, std::ostream &truth)
{
    if (options.rank >= 0) {
        const std::shared_ptr<const JobSchedule> schedule = cachedSchedule(options);
        checkFaults(options.faults, schedule->plans, schedule->steps);
        return generateRank(options, *schedule, host, kineto, truth);
    }
    Generator generator(options, host, kineto, truth);
    return generator.run();
}

std::vector<GeneratorStats> generateJob(const GeneratorOptions &options, const std::string &dir, bool truth, int threads)
{
    const int world = std::max(options.worldSize, 1);
    std::vector<GeneratorStats> stats(static_cast<std::size_t>(world));
    GeneratorOptions jobOptions = options;
    jobOptions.rank = 0;
    jobOptions.worldSize = world;
    const JobSchedule schedule = computeSchedule(jobOptions, threads);
    checkFaults(options.faults, schedule.plans, schedule.steps); // before anything is written
    std::filesystem::create_directories(dir);
    auto writeRank = [&](int rank) {
        GeneratorOptions o = options;
        o.rank = rank;
        o.worldSize = world;
        const std::string suffix = "_" + std::to_string(rank);
        const std::string hostPath = (std::filesystem::path(dir) / ("host" + suffix + ".json")).string();
        const std::string kinetoPath = (std::filesystem::path(dir) / ("kineto" + suffix + ".json")).string();
        const std::string truthPath = (std::filesystem::path(dir) / ("truth" + suffix + ".jsonl")).string();
        // No stream buffers of their own: the generator's sinks hand them 1 MB at a time.
        std::ofstream host, kineto, truthOut;
        host.open(hostPath + ".tmp", std::ios::binary | std::ios::trunc);
        kineto.open(kinetoPath + ".tmp", std::ios::binary | std::ios::trunc);
        if (truth)
            truthOut.open(truthPath + ".tmp", std::ios::binary | std::ios::trunc);
        if (!host || !kineto || (truth && !truthOut))
            throw std::runtime_error("cannot write in " + dir);
        stats[static_cast<std::size_t>(rank)] = generateRank(o, schedule, host, kineto, truthOut);
        host.close();
        kineto.close();
        if (truth)
            truthOut.close();
        if (!host || !kineto || (truth && !truthOut))
            throw std::runtime_error("writing rank " + std::to_string(rank) + " in " + dir + " failed");
        std::filesystem::rename(hostPath + ".tmp", hostPath);
        std::filesystem::rename(kinetoPath + ".tmp", kinetoPath);
        if (truth)
            std::filesystem::rename(truthPath + ".tmp", truthPath);
    };
    forEachRank(world, threads, writeRank);
    return stats;
}

} // namespace linkscope::gen
