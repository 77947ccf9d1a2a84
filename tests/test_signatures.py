"""Log signatures (matrix/log_signatures.toml), tested row by row on real log lines.

Every signature must be exercised by at least one line in SAMPLES. The lines are verbatim from
docs/facts.md section 7 / 6.2 / 6.3 ("§7 row N"), from TF 2.21's output on a host without a GPU
("TF 2.21 no-GPU log", reproduced in docs/facts.md section 8), from the Windows seed
tests/seeds/003_ffdd21011fc4f8ff.txt, or from public logs (named). Where a reference gives a
template with a placeholder ("<v>"), the comment says which value was filled in.
"""

from __future__ import annotations

import functools
import io
import re
import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from envcheck.explain.log_findings import without_replaced
from envcheck.explain.matcher import LogHit, clean_line, match_lines
from envcheck.findings import CODES, Severity
from envcheck.matrix.rows import MatrixDataError
from envcheck.matrix.signatures import FILE, FILES, Signature, load_log_frameworks, load_signatures

ROOT = Path(__file__).resolve().parents[1]
MATRIX = ROOT / "matrix"
TESTS = ROOT / "tests"
SEED = Path(__file__).resolve().parent / "seeds" / "003_ffdd21011fc4f8ff.txt"

SIGNATURES = load_signatures(MATRIX)
BY_ID = {s.id: s for s in SIGNATURES}

SAMPLES: dict[str, tuple[str, ...]] = {
    # Learned from training sets collected like the held-out ones (tests/corpus/train-*), 2026-12-07.
    # haanjack/mnist-cudnn#6, BVLC/caffe#6970, NVIDIA/caffe#171, arrayfire/arrayfire#3346,
    # MIT-Lu-Lab/cuPDLPx#11, andersbll/cudarray#59 (compile errors, each its thread's own line)
    "compile-cuda-api-undeclared": (
        'convolution.cu(82): error: identifier "cudnnGetConvolutionForwardAlgorithm" is undefined',
        "error: \u2018CUDNN_CONVOLUTION_FWD_SPECIFY_WORKSPACE_LIMIT\u2019 was not declared in this scope",
        "error: \u2018cudnnFindConvolutionForwardAlgorithmEx\u2019 was not declared in this scope workspace.size()));",
        '/build/arrayfire/src/arrayfire-full-3.8.2/src/backend/cuda/sparse_blas.cu(45): error: identifier "CUSPARSE_CSRMV_ALG1" is undefined',
        'cupdlpx/solver.cu(287): error: identifier "cusparseSpMV_preprocess" is undefined',
        "src/nnet/cudnn.cpp:199:5: error: \u2018cudnnConvolutionBwdFilterAlgoPerf_t\u2019 was not declared in this scope",
    ),
    # Theano/libgpuarray#562 (English) and #472 (French Windows)
    "windows-cuda-dll-not-found": (
        "pygpu.gpuarray.GpuArrayException: b'Could not load \"nvrtc64_70.dll\": The specified module could not be found.\\r\\n'",
        'GpuArrayException: Could not load "nvrtc64_90.dll": Le module sp\u00e9cifi\u00e9 est introuvable.',
    ),
    # NVIDIA/nvidia-container-toolkit#293 (as NVIDIA/nvidia-docker#1492: a GRID K2 on 367.134)
    # and NVIDIA/nvidia-docker#1295 (a GeForce 9300M GS on 340.107)
    "container-toolkit-nvml-function-not-found": (
        "docker: Error response from daemon: OCI runtime create failed: container_linux.go:367: starting containvidia-container-cli: detection error: nvml error: function not found: unknown.",
        r"""docker: Error response from daemon: OCI runtime create failed: container_linux.go:349: starting container process caused "process_linux.go:449: container init caused \"process_linux.go:432: running prestart hook 0 caused \\\"error running hook: exit status 1, stdout: , stderr: nvidia-container-cli: detection error: nvml error: function not found\\\\n\\\"\"": unknown.""",
    ),
    # NVIDIA/libnvidia-container#2 (built and installed without ldconfig) and
    # NVIDIA/gpu-rest-engine#35 (a DGX's prestart hook)
    "container-cli-library-missing": (
        "nvidia-container-cli: error while loading shared libraries: libnvidia-container.so.1: cannot open shared object file: No such file or directory",
        r"""docker: Error response from daemon: OCI runtime create failed: container_linux.go:296: starting container process caused "process_linux.go:398: container init caused \"process_linux.go:381: running prestart hook 0 caused \\\"error running hook: exit status 127, stdout: , stderr: exec command: [/usr/bin/nvidia-container-cli --load-kmods configure --device=all --compute --utility --require=cuda>=9.0 --pid=74222 /var/lib/docker/overlay2/e31668318907b321251266b57f0cb86c15d9afe9151f5b9004d872bd370ff07b/merged]\\\\n/usr/bin/nvidia-container-cli: error while loading shared libraries: libnvidia-container.so.1: cannot open shared object file: No such file or directory\\\\n\\\"\"": unknown.""",
    ),
    # NVIDIA/nvidia-container-toolkit#63 (podman 3.0.1)
    "podman-cdi-name-as-path": ("Error: stat nvidia.com/gpu=0: no such file or directory",),
    # PierreBeucher/cloudypad#179 (an AWS g4dn after an unattended kernel upgrade)
    "docker-nvidia-device-node-missing": (
        'Error response from daemon: error gathering device information while adding custom device "/dev/nvidia-uvm": no such file or directory',
    ),
    # PaddlePaddle/Paddle#24805 (the eleventh held-out set, read)
    "paddle-cudnn-library-not-found": (
        "W0529 03:50:54.756090 56933 dynamic_loader.cc:179] Failed to find dynamic library: libcudnn.so ( libcudnn.so: cannot open shared object file: No such file or directory )",
        "W0529 03:50:54.756062 56933 dynamic_loader.cc:120] Can not find library: libcudnn.so. The process maybe hang. Please try to add the lib path to LD_LIBRARY_PATH.",
    ),
    # jax-ml/jax#16546 and jax-ml/jax#6046
    "xla-ptx-kernel-not-found": (
        '2023-06-23 23:37:35.900649: E external/org_tensorflow/tensorflow/stream_executor/cuda/cuda_driver.cc:625] failed to get PTX kernel "compare_3" from module: CUDA_ERROR_NOT_FOUND: named symbol not found',
        '2021-03-29 11:23:18.711470: E external/org_tensorflow/tensorflow/stream_executor/cuda/cuda_driver.cc:682] failed to get PTX kernel "broadcast_2" from module: CUDA_ERROR_NOT_FOUND: named symbol not found',
    ),
    # keras-team/keras#18878 (issue description), keras-team/tf-keras#196 (issue description),
    # onnx/onnx-tensorflow#1080 (PR title), OverLordGoldDragon/keras-adamw#59 (issue
    # description), KANG99/style-transfer#2 (issue title)
    "keras-module-of-another-release": (
        "ModuleNotFoundError: No module named 'keras.src'",
        "ModuleNotFoundError: No module named 'keras.engine'",
        "ModuleNotFoundError: No module named 'keras.src.engine'",
        "ModuleNotFoundError: No module named 'keras.legacy'",
        "No module named 'keras.engine.topology'",
    ),
    # Mined from public threads, round three (framework and program messages); each comment
    # names the thread
    # IDKiro/CBDNet-pytorch#20 (issue description), sebsk/CS224N-Project#2 (PR description),
    # CHUNYUWANG/imu-human-pose-pytorch#8 (issue description)
    "torch-scalar-type-mismatch": (
        "RuntimeError: Expected object of scalar type Double but got scalar type Float for sequence element 2 in sequence argument at position #1 'tensors'",
        "RuntimeError: expected scalar type Float but found Double",
        "RuntimeError: expected scalar type Double but found Float",
    ),
    # ronghuaiyang/arcface-pytorch#56 (issue description), WebODM/OpenSplat#135 (issue description)
    "torch-backward-without-grad-fn": (
        "RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn",
        "element 0 of tensors does not require grad and does not have a grad_fn",
    ),
    # JDAI-CV/LIO#9 (issue description), tamakoji/pytorch-syncbn#4 (comment by ElbertFang)
    "torch-inplace-modified-for-backward": (
        "RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation: [torch.cuda.FloatTensor [10, 49]], which is output 0 of SubBackward0, is at version 1; expected version 0 instead. Hint: enable anomaly detection to find the operation that failed to compute its gradient, with torch.autograd.set_detect_anomaly(True).",
        "RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation",
    ),
    # aks2203/deep-thinking#5 (issue description), hou-yz/MVDet#7 (issue description)
    "torch-state-dict-key-mismatch": (
        '\tMissing key(s) in state_dict: "projection.0.weight", "recur_block.0.0.conv1.weight", "recur_block.0.0.conv2.weight", "recur_block.0.1.conv1.weight", "recur_block.0.1.conv2.weight", "head.0.weight", "head.2.weight", "head.4.weight". ',
        '\tUnexpected key(s) in state_dict: "module.projection.0.weight", "module.recur_block.0.0.conv1.weight", "module.recur_block.0.0.conv2.weight", "module.recur_block.0.1.conv1.weight", "module.recur_block.0.1.conv2.weight", "module.head.0.weight", "module.head.2.weight", "module.head.4.weight".',
        'Missing key(s) in state_dict: "map_classifier.0.weight", "map_classifier.0.bias", "map_classifier.2.weight", "map_classifier.2.bias", "map_classifier.4.weight". ',
    ),
    # ImprintLab/MedSegDiff#27 (issue description), va1shn9v/PromptIR#30 (issue description)
    "torch-ddp-unused-parameters": (
        "RuntimeError: Expected to have finished reduction in the prior iteration before starting a new one. This error indicates that your module has parameters that were not used in producing loss. You can enable unused parameter detection by passing the keyword argument `find_unused_parameters=True` to `torch.nn.parallel.DistributedDataParallel`, and by ",
        "RuntimeError: Expected to have finished reduction in the prior iteration before starting a new one. This error indicates that your module has parameters that were not used in producing loss. You can enable unused parameter detection by (1) passing the keyword argument `find_unused_parameters=True` to `torch.nn.parallel.DistributedDataParallel`; (2) making sure all `forward` function outputs participate in calculating loss. If you already have done the above two steps, then the distributed data parallel module wasn't able to locate the output tensors in the return value of your module's `forward` function. Please include the loss function and the structure of the return value of `forward` of your module when reporting this issue (e.g. list,dict, iterable).",
    ),
    # Facico/Chinese-Vicuna#168 (issue description)
    "torch-amp-unscale-fp16-gradients": (
        '    raise ValueError("Attempting to unscale FP16 gradients.")',
        "ValueError: Attempting to unscale FP16 gradients.",
    ),
    # kwuking/TimeMixer#21 (issue description), hezhangsprinter/DID-MDN#3 (title)
    "multiprocessing-spawn-without-main-guard": (
        "        An attempt has been made to start a new process before the",
        "RuntimeError: An attempt has been made to start a new process before the current process has finished its bootstrapping phase.",
    ),
    # gpoesia/minimo#21 (PR description), D3voz/joy-caption-alpha-two-gui-mod#7 (issue description)
    "torch-load-weights-only-failed": (
        "_pickle.UnpicklingError: Weights only load failed. This file can still be loaded, to do so you have two options, do those steps only if you trust the source of the checkpoint. (1) In PyTorch 2.6, we changed the default value of the `weights_only` argument in `torch.load` from `False` to `True`. Re-running `torch.load` with `weights_only` set to `False` will likely succeed, but it can result in arbitrary code execution. Do it only if you got the file from a trusted source. (2) Alternatively, to load with `weights_only=True` please check the recommended steps in the following error message.",
        "An error occurred while loading models: Weights only load failed. In PyTorch 2.6, we changed the default value of the `weights_only` argument in `torch.load` from `False` to `True`. Re-running `torch.load` with `weights_only` set to `False` will likely succeed, but it can result in arbitrary code execution. Do it only if you got the file from a trusted source.",
    ),
    # svip-lab/PPGNet#2 (issue description), fhalab/embeddings_reproduction#11 (issue description)
    "pickle-git-lfs-pointer": (
        "_pickle.UnpicklingError: invalid load key, 'v'.",
        "UnpicklingError: invalid load key, 'v'.",
    ),
    # AUTOMATIC1111/stable-diffusion-webui#1861 (issue description), JizhiziLi/P3M#13 (issue description)
    "torch-load-truncated-zip": (
        "RuntimeError: PytorchStreamReader failed reading zip archive: failed finding central directory",
        "RuntimeError: PytorchStreamReader failed reading zip archive: failed finding central directory,",
    ),
    # bytedance/GR-MG#11 (issue description), pytorch/pytorch#85604 (issue description)
    "torch-distributed-port-in-use": (
        "[W socket.cpp:436] [c10d] The server socket has failed to bind to [::]:50002 (errno: 98 - Address already in use).",
        "[W socket.cpp:436] [c10d] The server socket has failed to bind to 0.0.0.0:50002 (errno: 98 - Address already in use).",
        "[W socket.cpp:401] [c10d] The server socket has failed to listen on [::]:47531 (errno: 98 - Address already in use).",
    ),
    # 2noise/ChatTTS#184 (issue description), kijai/ComfyUI-WanVideoWrapper#978 (issue description)
    "torch-inductor-triton-missing": (
        "RuntimeError: Cannot find a working triton installation. More information on installing Triton can be found at https://github.com/openai/triton",
        "torch._inductor.exc.TritonMissing: Cannot find a working triton installation. Either the package is not installed or it is too old. More information on installing Triton can be found at: https://github.com/triton-lang/triton",
    ),
    # kijai/ComfyUI-CogVideoXWrapper#97 (issue description), dotnet/TorchSharp#1375 (issue description)
    "torch-sdpa-without-flash-attention": (
        "ComfyUI\\comfy\\ldm\\modules\\attention.py:407: UserWarning: 1Torch was not compiled with flash attention.",
        "[W914 13:25:36.000000000 sdp_utils.cpp:555] Warning: 1Torch was not compiled with flash attention. (function operator ())",
    ),
    # huggingface/sentence-transformers#699 (issue description), yuh-zha/AlignScore#18 (issue description)
    "transformers-weights-newly-initialized": (
        "Some weights of BertForSequenceClassification were not initialized from the model checkpoint at model_bertAlisafaya_base/0_Transformer/ and are newly initialized: ['classifier.bias', 'classifier.weight']",
        "Some weights of RobertaModel were not initialized from the model checkpoint at roberta-base and are newly initialized: ['roberta.pooler.dense.bias', 'roberta.pooler.dense.weight']",
    ),
    # gladiaio/gladia#165 (issue description), sillsdev/silnlp#316 (issue description)
    "tokenizers-fork-after-parallelism": (
        "huggingface/tokenizers: The current process just got forked, after parallelism has already been used. Disabling parallelism to avoid deadlocks...",
    ),
    # QwenLM/Qwen3#295 (issue description), basalam/product-catalog-generator#10 (issue description)
    "vllm-kv-cache-too-small": (
        "ValueError: The model's max seq len (32768) is larger than the maximum number of tokens that can be stored in KV cache (7344). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.",
        "ValueError: The model's max seq len (4096) is larger than the maximum number of tokens that can be stored in KV cache (3664). Try increasing gpu_memory_utilization or decreasing max_model_len when initializing the engine.",
    ),
    # substratusai/vllm-docker#37 (issue description), verl-project/verl#2594 (issue description)
    "vllm-bfloat16-needs-ampere": (
        "ValueError: Bfloat16 is only supported on GPUs with compute capability of at least 8.0. Your Tesla T4 GPU has compute capability 7.5. You can use float16 instead by explicitly setting the`dtype` flag in CLI, for example: --dtype=half.",
        "ValueError: Bfloat16 is only supported on GPUs with compute capability of at least 8.0. Your Tesla V100-SXM2-32GB GPU has compute capability 7.0. You can use float16 instead by explicitly setting the`dtype` flag in CLI, for example: --dtype=half.",
    ),
    # EscVM/RAMS#13 (issue description), matthewearl/deep-anpr#54 (issue description)
    "tf-dst-tensor-not-initialized": (
        "InternalError: Failed copying input tensor from /job:localhost/replica:0/task:0/device:CPU:0 to /job:localhost/replica:0/task:0/device:GPU:0 in order to run _EagerConst: Dst tensor is not initialized.",
        "tensorflow.python.framework.errors_impl.InternalError: Dst tensor is not initialized.",
    ),
    # arcee-ai/mergekit#175 (issue description)
    "torch-half-on-cpu": ("RuntimeError: \"addmm_impl_cpu_\" not implemented for 'Half'",),
    # Mined from public threads, round two; each comment names the thread
    # MiteshPuthran/Speech-Emotion-Analyzer#52 (issue description), tensorflow/tensorflow#52060 (title)
    "keras-shapes-incompatible": (
        "ValueError: Shapes (None, 4) and (None, 10) are incompatible",
        "ValueError: Shapes (None, 8) and (None, 7) are incompatible",
    ),
    # hkchengrex/STCN#132 (issue description), msr-fiddle/pipedream#28 (issue description)
    "torch-dataloader-shm-bus-error": (
        "RuntimeError: DataLoader worker (pid 46794) is killed by signal: Bus error. It is possible that dataloader's workers are out of shared memory. Please try to raise your shared memory limit.",
        "ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm).",
    ),
    # tianzhi0549/FCOS#385 (issue description), CharlesShang/DCNv2#143 (title)
    "torch-cpp-extension-unknown-arch": (
        "ValueError: Unknown CUDA arch (8.6) or GPU not supported",
        "ValueError: Unknown CUDA arch (8.9) or GPU not supported",
    ),
    # PRBonn/MaskPLS#18 (issue description), NVlabs/nvdiffmodeling#25 (issue description)
    "nvrtc-invalid-gpu-architecture": (
        "RuntimeError: nvrtc: error: invalid value for --gpu-architecture (-arch)",
        "nvrtc: error: invalid value for --gpu-architecture (-arch)",
    ),
    # pytorch/pytorch#86195 (issue description), invoke-ai/InvokeAI#232 (PR description)
    "torch-mps-op-not-implemented": (
        "NotImplementedError: The operator 'aten::_slow_conv2d_forward' is not currently implemented for the MPS device. If you want this op to be added in priority during the prototype phase of this feature, please comment on https://github.com/pytorch/pytorch/issues/77764. As a temporary fix, you can set the environment variable `PYTORCH_ENABLE_MPS_FALLBACK=1` to use the CPU as a fallback for this op. WARNING: this will be slower than running natively on MPS.",
        "NotImplementedError: The operator 'aten::_index_put_impl_' is not current implemented for the MPS device. If you want this op to be added in priority during the prototype phase of this feature, please comment on https://github.com/pytorch/pytorch/issues/77764. As a temporary fix, you can set the environment variable `PYTORCH_ENABLE_MPS_FALLBACK=1` to use the CPU as a fallback for this op. WARNING: this will be slower than running natively on MPS.",
    ),
    # thu-ml/tianshou#1237 (a comment)
    "torch-mps-float64": (
        "TypeError: Cannot convert a MPS Tensor to float64 dtype as the MPS framework doesn't support float64. Please use float32 instead.",
    ),
    # JDAI-CV/fast-reid#509 (PR description), iMoonLab/PVRNet#3 (issue description)
    "torch-cuda-tensor-to-numpy": (
        "TypeError: can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory first.",
        "TypeError: can't convert CUDA tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory first.",
    ),
    # LuyaooChen/uninformed-students-pytorch#3 (issue description), maudzung/RTM3D#11 (issue description)
    "cuda-invalid-device-ordinal": (
        "RuntimeError: CUDA error: invalid device ordinal",
        "RuntimeError: cuda runtime error (101) : invalid device ordinal at /pytorch/torch/csrc/cuda/Module.cpp:59",
    ),
    # NVIDIA/retinanet-examples#314 (issue description), SthPhoenix/InsightFace-REST#84 (issue description)
    "tensorrt-engine-version-mismatch": (
        "6: The engine plan file is not compatible with this version of TensorRT, expecting library version 8.0.0 got 8.0.1, please rebuild.",
        "face_1             | [05/02/2022-15:17:45] [TRT] [E] 6: The engine plan file is not compatible with this version of TensorRT, expecting library version 8.2.3 got 8.2.1, please rebuild.",
    ),
    # the ColBERT report of train-d (rank 1's log); karpathy/nanoGPT#55 (two nodes)
    "torch-nccl-watchdog-timeout": (
        "[rank1]:[E ProcessGroupNCCL.cpp:523] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=5, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600659 milliseconds before timing out.",
    ),
    "torch-nccl-operations-failed": (
        "[E ProcessGroupNCCL.cpp:455] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU opera",
    ),
    # Comfy-Org/ComfyUI#3278 (PyTorch's allocator as ComfyUI shows it)
    "torch-cuda-out-of-memory-plain": (
        "torch.cuda.OutOfMemoryError: Allocation on device 0 would exceed allowed memory. (out of memory)",
    ),
    # yufu-wang/PromptHMR#4 (xformers' operator table)
    "xformers-built-without-cuda": ("    xFormers wasn't build with CUDA support",),
    # turboderp-org/exllamav2#358 (traceback)
    "flash-attn-windows-dll-load-failed": (
        "ImportError: DLL load failed while importing flash_attn_2_cuda",
    ),
    # filecoin-project/rust-gpu-tools#79 (cargo run's panic)
    "cuda-no-binary-for-gpu-rust": (
        "thread 'main' panicked at 'called `Result::unwrap()` on an `Err` value: Cuda(NoBinaryForGpu)', examples/add.rs:10:76",
    ),
    # numba/numba#1976 (traceback)
    "python-ctypes-wrong-type": (
        "ctypes.ArgumentError: argument 2: <class 'TypeError'>: wrong type",
        # measured: ctypes.CDLL(None).abs(1.5), CPython 3.10 to 3.13 (3.6 to 3.9: <class ...>)
        "ctypes.ArgumentError: argument 1: TypeError: Don't know how to convert parameter 1",
    ),
    # pytorch/pytorch#15800 (a stale libc10 in /usr/local/lib); pytorch/pytorch#13893 (nightly
    # and 0.4.1 mixed): torch's own libraries missing a type-info symbol
    "extension-undefined-torch-symbol": (
        "ImportError: ~/.local/lib/python3.6/site-packages/torch/lib/libcaffe2.so: undefined symbol: _ZTIN3c1010TensorImplE",
        "ImportError: /home/caomeng/anaconda3/envs/maskrcnn_benchmark/lib/python3.7/site-packages/torch/lib/libtorch.so.1: undefined symbol: _ZTIN2at10TensorImplE",
    ),
    # tensorflow/tensorflow#59016 (the download's error document)
    "libtensorflow-windows-gpu-archive-missing": (
        "<Details>No such object: tensorflow/libtensorflow/libtensorflow-gpu-windows-x86_64-2.11.0.zip</Details>",
    ),
    # numba/numba#7006 (numba -s)
    "numba-minor-version-compatibility-needed": (
        "CUDA Minor Version Compatibility Needed    : True",
    ),
    # NVIDIA/JAX-Toolbox#183 (gdb's backtrace)
    "nccl-shm-open-sigbus": (
        "0x00007f6b59544f3b in ncclShmOpen(char*, unsigned long, void**, void**, int, void**) () from /usr/local/lib/python3.10/dist-packages/jaxlib/xla_extension.so",
    ),
    # jax-ml/jax#12305; madvn/DDPG#2; cupy/cupy#594 (tracebacks)
    "array-shape-errors": (
        "ValueError: Incompatible shapes for broadcasting: ((2, 4), (1, 2))",
        "tensorflow.python.framework.errors_impl.InvalidArgumentError: In[0] is not a matrix. Instead it has shape [4] [Op:MatMul]",
        "TypeError: Unsupported type <class 'list'>",
    ),
    # tensorflow/tensorflow#111958 (issue title and log)
    "llvm-ptx-version-below-target": (
        "LLVM ERROR: PTX version 8.5 does not support target 'sm_120' (or 'sm_120a'). Minimum required PTX version is 8.7",
    ),
    # NVIDIA/pyxis#47 (ls inside the job's container)
    "nvidia-device-node-absent": (
        "/usr/bin/ls: cannot access '/dev/nvidia0': No such file or directory",
    ),
    # NixOS/nixpkgs#339999 (rootless Docker)
    "docker-cdi-driver-not-enabled": (
        'docker: Error response from daemon: could not select device driver "cdi" with capabilities: [].',
    ),
    # Lightning-AI/pytorch-lightning#16102 (issue description)
    "lightning-visible-devices-notice": ("LOCAL_RANK: 0 - CUDA_VISIBLE_DEVICES: [0]",),
    # huggingface/text-generation-inference#398 (the container's start-up log, as pasted)
    "tgi-flash-attention-capability-notice": ("GPU with CUDA is capability 7 0 is not supported",),
    # microsoft/DirectML#372 (the warning, cut where the thread's paste ends)
    "directml-operator-cpu-fallback": (
        "UserWarning: The operator 'aten::multinomial' is not currently supported on the DML backend and will fall back to run on the CPU. This may have performance implications. (Triggered internally at D:\\a\\_work\\1\\s\\pytorch-di",
    ),
    # chishaxie/BlindWaterMark#8 (traceback)
    "numpy-broadcast-shapes": (
        "ValueError: operands could not be broadcast together with shapes (38,401,3) (1444,1080,3)",
    ),
    # yangji9181/HNE#13, shivamswarnkar/Image-Generator#1
    "torch-found-dtype-expected": ("RuntimeError: Found dtype Long but expected Float",),
    # pochih/FCN-pytorch#15
    "torch-target-size-differs": (
        "ValueError: Target size (torch.Size([2, 32, 480, 640])) must be the same as input size (torch.Size([2, 20, 480, 640]))",
    ),
    # eugr/spark-vllm-docker#15 (DGX Spark)
    "torch-gpu-capability-minor-past-newest": (
        "Found GPU0 NVIDIA GB10 which is of cuda capability 12.1. Minimum and Maximum cuda capability supported by this version of PyTorch is (8.0) - (12.0)",
    ),
    # ollama/ollama#12797 (OLLAMA_LLM_LIBRARY in a Kubernetes deployment)
    "ollama-llm-library-forced": (
        'msg="skipping available library at users request" requested=cuda libDir=/usr/lib/ollama/cuda_v12',
    ),
    # ollama/ollama#8166 (an older release's libraries left behind)
    "ollama-runner-undefined-ggml-symbol": (
        "Error: llama runner process has terminated: error:/usr/local/lib/ollama/runners/cuda_v12_avx/ollama_llama_server: undefined symbol: ggml_backend_cuda_reg",
    ),
    # junyanz/pytorch-CycleGAN-and-pix2pix#252
    "torch-broadcast-cpu-tensors": (
        "TypeError: Broadcast function not implemented for CPU tensors",
    ),
    # robotology/robotology-superbuild#1702; edahelsinki/slisemap#17 (its Chinese form)
    "windows-invalid-ordinal": (
        'OSError: [WinError 182] The operating system cannot run %1. Error loading "D:\\miniforge\\envs\\robsub\\Lib\\site-packages\\torch\\lib\\fbgemm.dll" or one of its dependencies.',
        'OSError: [WinError 182] 操作系统无法运行 %1。 Error loading "D:\\APP\\02Research\\anaconda3\\envs\\pytorch-gpu\\lib\\site-packages\\torch\\lib\\fbgemm.dll" or one of its dependencies.',
    ),
    # NVIDIA/nvidia-container-toolkit#24
    "container-cli-brand-unknown": (
        "nvidia-container-cli: requirement error: unsatisfied condition: brand = quadrortx: unknown",
    ),
    # NVIDIA/nvidia-container-runtime#190 (crun); mudler/LocalAI#2117 (LocalAI's entrypoint)
    "container-nvidia-smi-not-in-image": (
        "Error: crun: executable file `nvidia-smi` not found in $PATH: No such file or directory: OCI runtime attempted to invoke a command that was not found",
        "NVIDIA GPU detected, but nvidia-smi is not installed. GPU acceleration will not be available.",
    ),
    # floydhub/dockerfiles#3
    "docker-run-gpu-image-without-gpus": (
        "$ sudo docker run  -t -i floydhub/pytorch:latest-gpu-py3 ipython",
    ),
    # cumulo-autumn/StreamDiffusion#152, grimoire/mmdetection-to-tensorrt#97
    "tensorrt-input-outside-profile": (
        "[E] 3: [executionContext.cpp::nvinfer1::rt::ExecutionContext::validateInputBindings::2045] Error Code 3: API Usage Error (Parameter check failed at: runtime/api/executionContext.cpp::nvinfer1::rt::ExecutionContext::validateInputBindings::2045, condition: profileMaxDims.d[i] >= dimensions.d[i]. Supplied binding dimension [2,4,67,120] for bindings[0] exceed min ~ max range at index 2, maximum dimension in profile is 64, minimum dimension in profile is 64, but supplied dimension is 67.",
        "[12/17/2021-14:00:28] [TRT] [E] 3: [executionContext.cpp::setBindingDimensions::945] Error Code 3: API Usage Error (Parameter check failed at: runtime/api/executionContext.cpp::setBindingDimensions::945, condition: profileMinDims.d[i] <= dimensions.d[i]. Supplied binding dimension [1,3,576,768] for bindings[0] exceed min ~ max range at index 2, maximum dimension in profile is 800, minimum dimension in profile is 800, but supplied dimension is 576.",
    ),
    # bitsandbytes-foundation/bitsandbytes#590 (a self-built DLL of bitsandbytes before 0.43)
    "bitsandbytes-old-windows-binary": (
        "CUDA SETUP: Loading binary D:\\Toolkit\\conda\\envs\\textgen\\lib\\site-packages\\bitsandbytes\\libbitsandbytes_cuda122.dll...",
    ),
    # NVIDIA/nccl#444 (K40m), pytorch/pytorch#152077 (RTX 5090)
    "nccl-cuda-failure-no-kernel": (
        "[3] enqueue.cc:215 NCCL WARN Cuda failure 'invalid device function'",
        "4d1a2ae696c8:50555:50555 [0] NCCL WARN Cuda failure 'named symbol not found'",
    ),
    # vllm-project/vllm#1063
    "ptxas-feature-requires-target": (
        "ptxas /tmp/tmpxft_0006e7c4_00000000-6_gemm_kernels.ptx, line 928; error   : Feature '.m16n8k16' requires .target sm_80 or higher",
        # triton 3.4.0's PTX on a Pascal GPU (sasha0552/pascal-pkgs-ci#46)
        "ptxas /tmp/tmpaj0u6ubt.ptx, line 57; error : Modifier '.evict_last' on 'ld' requires .target sm_70 or higher",
    ),
    # NVIDIA/DIGITS#1264, NVIDIA/DIGITS#1282
    "curand-launch-failure": (
        "F1112 06:23:06.447123  5120 math_functions.cu:396] Check failed: status == CURAND_STATUS_SUCCESS (201 vs. 0)  CURAND_STATUS_LAUNCH_FAILURE",
        "Check failed: status == CURAND_STATUS_SUCCESS (201 vs. 0)  CURAND_STATUS_LAUNCH_FAILURE",
    ),
    # HsinYingLee/OPN#2, dusty-nv/jetson-inference#235
    "caffe-cudnn-bad-param": (
        "F1011 13:25:12.899116  7866 cudnn.hpp:122] Check failed: status == CUDNN_STATUS_SUCCESS (3 vs. 0)  CUDNN_STATUS_BAD_PARAM",
        "Check failed: status == CUDNN_STATUS_SUCCESS (3 vs. 0)  CUDNN_STATUS_BAD_PARAM",
    ),
    # sithu31296/semantic-segmentation#28
    "torch-lr-scheduler-before-optimizer": (
        "/usr/local/lib/python3.7/dist-packages/torch/optim/lr_scheduler.py:134: UserWarning: Detected call of `lr_scheduler.step()` before `optimizer.step()`. In PyTorch 1.1.0 and later, you should call them in the opposite order: `optimizer.step()` before `lr_scheduler.step()`.  Failure to do this will result in PyTorch skipping the first value of the learning rate schedule. See more details at https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate",
    ),
    # pytorch/extension-cpp#6
    "torch-extension-imported-before-torch": (
        "/home/jatentaki/anaconda3/lib/python3.6/site-packages/sort2_cuda-0.0.0-py3.6-linux-x86_64.egg/lltm_cpp.cpython-36m-x86_64-linux-gnu.so: undefined symbol: THPVariableClass",
    ),
    # tensorflow/tensorflow#15175
    "tf1-uninitialized-value": (
        "FailedPreconditionError (see above for traceback): Attempting to use uninitialized value dense_18/bias",
    ),
    # jessemelpolio/Faster_RCNN_for_DOTA#9
    "mxnet-invalid-gpu-id": (
        "mxnet.base.MXNetError: [13:48:30] src/engine/threaded_engine.cc:320: Check failed: exec_ctx.dev_id < device_count_ (1 vs. 1) Invalid GPU Id: 1, Valid device id should be less than device_count: 1",
    ),
    # sunjesse/shape-attentive-unet#8
    "torch-target-size-deprecated": (
        "ValueError: Using a target size (torch.Size([1, 256, 256])) that is different to the input size (torch.Size([1, 1, 256, 256])) is deprecated. Please ensure they have the same size.",
    ),
    # StevenBanama/C3AE#19
    "keras-input-min-ndim": (
        " ValueError: Input 0 of layer conv1 is incompatible with the layer: : expected min_ndim=4, found ndim=3. Full shape received: [32, 64, 3]",
    ),
    # kohya-ss/sd-scripts#603
    "torch-mps-watermark-ratio": ("RuntimeError: invalid low watermark ratio 1.4",),
    # prehensilecode/alphafold_singularity#4 (AlphaFold's log)
    "ptxas-binary-not-found": (
        "2022-08-09 17:46:30.176360: W external/org_tensorflow/tensorflow/compiler/xla/service/gpu/nvptx_compiler.cc:75] Can't find ptxas binary in ${CUDA_DIR}/bin.  Custom ptxas location can be specified using $PATH.",
    ),
    # facebookresearch/detectron2#384 (issue description)
    "torch-dataloader-worker-exited": (
        "RuntimeError: DataLoader worker (pid(s) 25) exited unexpectedly",
    ),
    # QwenLM/Qwen#32; NVIDIA/apex#1052 (tracebacks)
    "torch-half-overflow": (
        "RuntimeError: value cannot be converted to type at::Half without overflow",
        "RuntimeError: value cannot be converted to type at::Half without overflow: -1e+09",
    ),
    # NVIDIA/TensorRT#574 (the plan file written and read in text mode on Windows)
    "tensorrt-engine-file-unreadable": (
        "ERROR: The engine plan file is not compatible with this version of TensorRT, expecting library version 5.1.5 got 0.0.0, please rebuild.",
    ),
    # vietanhdev/anylabeling#110, cvg/pixel-perfect-sfm#11 (issue descriptions), ContinuumIO/anaconda-issues#5191 (a comment)
    "libstdcxx-version-not-found": (
        "ImportError: /lib/x86_64-linux-gnu/libstdc++.so.6: version `GLIBCXX_3.4.29' not found (required by /home/zk/conda/envs/anylabeling/lib/python3.8/site-packages/matplotlib/_path.cpython-38-x86_64-linux-gnu.so)",
        "ImportError: /home/kevin/anaconda3/envs/pixSfM/lib/libstdc++.so.6: version `GLIBCXX_3.4.29' not found (required by /home/kevin/pixel-perfect-sfm/pixsfm/_pixsfm.cpython-38-x86_64-linux-gnu.so)",
        "OSError: /opt/anaconda3/bin/../lib/libstdc++.so.6: version `CXXABI_1.3.9' not found (required by /opt/anaconda3/lib/python3.6/site-packages/porechop/cpp_functions.so)",
        # jax-ml/jax#9218: the library's name lost where a terminal wrapped the line
        " version `GLIBCXX_3.4.26' not found",
    ),
    # thu-ml/tianshou#527 (issue description), zbf1991/WeCLIP#5 (issue description)
    "windows-paging-file-too-small": (
        r'E   OSError: [WinError 1455] The paging file is too small for this operation to complete. Error loading "E:\Anaconda3\lib\site-packages\torch\lib\caffe2_detectron_ops_gpu.dll" or one of its dependencies.',
        r'OSError: [WinError 1455] 页面文件太小，无法完成操作。 Error loading "D:\Anaconda3\envs\wssam\lib\site-packages\torch\lib\cudnn_cnn_infer64_8.dll" or one of its dependencies.',  # noqa: RUF001
    ),
    # Mined from public threads (the long tail); each comment names the thread
    # acidanthera/bugtracker#2237 (journal lines in a comment)
    "nvidia-module-key-rejected": (
        "mar 06 15:10:43 CS3003NS gdm3[7055]: modprobe: ERROR: could not insert 'nvidia': Key was rejected by service",
    ),
    # Witko/nvidia-xrun#135 (issue description), Witko/nvidia-xrun#144 (issue description)
    "nvidia-module-not-found": (
        "modprobe: FATAL: Module nvidia not found in directory /lib/modules/5.2.13-200.fc30.x86_64",
        "modprobe: FATAL: nvidia_drm not found in directory /lib/modules/5.5.9-zen1-2-zen",
    ),
    # AbdBarho/stable-diffusion-webui-docker#117 (issue description)
    "container-cli-wsl-no-adapters": (
        "nvidia-container-cli: initialization error: WSL environment detected but no adapters were found: unknown",
    ),
    # cedricxie/apollo_perception_ros#20 (issue description)
    "container-cli-nvml-driver-not-loaded": (
        "docker: Error response from daemon: OCI runtime create failed: container_linux.go:380: starting container process caused: process_linux.go:545: container init caused: Running hook #0:: error running hook: exit status 1, stdout: , stderr: nvidia-container-cli: initialization error: nvml error: driver not loaded: unknown.",
    ),
    # loeeeee/immich-in-lxc#32 (issue description), memoavatar/memo#13 (issue description)
    "ort-cuda-provider-cudnn-missing": (
        "E:onnxruntime:Default, provider_bridge_ort.cc:1745 TryGetProviderInfo_CUDA] /onnxruntime_src/onnxruntime/core/session/provider_bridge_ort.cc:1426 onnxruntime::Provider& onnxruntime::ProviderLibrary::Get() [ONNXRuntimeError] : 1 : FAIL : Failed to load library libonnxruntime_providers_cuda.so with error: libcudnn.so.9: cannot open shared object file: No such file or directory",
        "2024-12-09 13:04:11.264813429 [E:onnxruntime:Default, provider_bridge_ort.cc:1862 TryGetProviderInfo_CUDA] /onnxruntime_src/onnxruntime/core/session/provider_bridge_ort.cc:1539 onnxruntime::Provider& onnxruntime::ProviderLibrary::Get() [ONNXRuntimeError] : 1 : FAIL : Failed to load library libonnxruntime_providers_cuda.so with error: libcudnn_adv.so.9: cannot open shared object file: No such file or directory",
    ),
    # microsoft/onnxruntime#21501 (issue description)
    "ort-cuda-provider-dll-dependency-missing": (
        '[E:onnxruntime:Default, provider_bridge_ort.cc:1745 onnxruntime::TryGetProviderInfo_CUDA] D:\\a_work\\1\\s\\onnxruntime\\core\\session\\provider_bridge_ort.cc:1426 onnxruntime::ProviderLibrary::Get [ONNXRuntimeError] : 1 : FAIL : LoadLibrary failed with error 126 "" when trying to load "C:\\sd.webui\\system\\python\\lib\\site-packages\\onnxruntime\\capi\\onnxruntime_providers_cuda.dll"',
    ),
    # MIC-DKFZ/nnUNet#2188 (issue description), 2noise/ChatTTS#341 (issue description)
    "torch-inductor-gpu-too-old-for-triton": (
        "RuntimeError: Found NVIDIA GeForce GTX 1080 Ti which is too old to be supported by the triton GPU compiler, which is used as the backend. Triton only supports devices of CUDA Capability >= 7.0, but your device is of CUDA capability 6.1",
        "[2024-06-18 19:45:55,713] torch._dynamo.convert_frame: [WARNING] RuntimeError: Found NVIDIA GeForce GTX 1080 Ti which is too old to be supported by the triton GPU compiler, which is used as the backend. Triton only supports devices of CUDA Capability >= 7.0, but your device is of CUDA capability 6.1",
    ),
    # microsoft/MInference#51 (a comment by the reporter)
    "flash-attention-needs-ampere": (
        "RuntimeError: FlashAttention only supports Ampere GPUs or newer.",
    ),
    # ltdrdata/ComfyUI-Impact-Pack#915 (issue description)
    "torchvision-op-missing-backend": (
        "Could not run 'torchvision::nms' with arguments from the 'CUDA' backend. This could be because the operator doesn't exist for this backend, or was omitted during the selective/custom build process (if using custom build). If you are a Facebook employee using PyTorch on mobile, please visit https://fburl.com/ptmfixes for possible resolutions. 'torchvision::nms' is only available for these backends: [CPU, Meta, QuantizedCPU, BackendSelect, Python, FuncTorchDynamicLayerBackMode, Functionalize, Named, Conjugate, Negative, ZeroTensor, ADInplaceOrView, AutogradOther, AutogradCPU, AutogradCUDA, AutogradXLA, AutogradMPS, AutogradXPU, AutogradHPU, AutogradLazy, AutogradMTIA, AutogradMeta, Tracer, AutocastCPU, AutocastXPU, AutocastMPS, AutocastCUDA, FuncTorchBatched, BatchedNestedTensor, FuncTorchVmapMode, Batched, VmapMode, FuncTorchGradWrapper, PythonTLSSnapshot, FuncTorchDynamicLayerFrontMode, PreDispatch, PythonDispatcher].",
    ),
    # logpai/deep-loglizer#10 (issue description), python-control/python-control#926
    "numpy-c-api-version-newer": (
        "RuntimeError: module compiled against API version 0xe but this version of numpy is 0xd",
        "RuntimeError: module compiled against API version 0x10 but this version of numpy is 0xf",
    ),
    # NVIDIA/numba-cuda#69 (issue description), NVIDIA/cudf#1992 (issue description)
    "numba-libnvvm-not-found": (
        "NvvmSupportError: libNVVM cannot be found. Do `conda install cudatoolkit`:",
        "numba.cuda.cudadrv.error.NvvmSupportError: libNVVM cannot be found. Do `conda install cudatoolkit`:",
    ),
    # m-bain/whisperX#575 (issue description)
    "ct2-not-compiled-with-cuda": (
        "ValueError: This CTranslate2 package was not compiled with CUDA support",
    ),
    # oobabooga/textgen#5 (issue description), ROCm/tensorflow-upstream#1106 (title)
    "hip-no-binary-for-gpu": (
        '"hipErrorNoBinaryForGpu: Unable to find code object for all current devices!"',
        'hip_code_object.cpp:92: guarantee(false && "hipErrorNoBinaryForGpu: Coudn\'t find binary for current devices!")',
    ),
    # kleinlee/DH_live#22 (issue description)
    "torch-load-cuda-checkpoint-without-cuda": (
        "RuntimeError: Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is False. If you are running on a CPU-only machine, please use torch.load with map_location=torch.device('cpu') to map your storages to the CPU.",
    ),
    # tests/corpus-holdout-4 (read after its end score): the threads each source names
    "nvidia-smi-device-handle-unknown": (
        "Unable to determine the device handle for GPU 0000:0B:00.0: Unknown Error.",
        # pdbear/syno_nvidia_gpu_driver#22 (no space before the bus id)
        "Unable to determine the device handle for GPU0000:07:00.0: Unknown Error",
    ),
    "torch-target-out-of-bounds": (
        "IndexError: Target 192 is out of bounds",
        "IndexError: Target -1 is out of bounds.",
    ),
    "torch-state-dict-size-mismatch": (
        "\tsize mismatch for class_embed.weight: copying a param with shape torch.Size([92, 256]) from checkpoint, the shape in current model is torch.Size([3, 256]).",
    ),
    "ct2-compute-type-unsupported": (
        "ValueError: Requested float16 compute type, but the target device or backend do not support efficient float16 computation.",
    ),
    "torch-mps-macos-too-old": ("RuntimeError: The MPS backend is supported on MacOS 12.3+.",),
    # lllyasviel/Fooocus#1139 (issue description)
    "torch-mps-out-of-memory": (
        "RuntimeError: MPS backend out of memory (MPS allocated: 8.89 GB, other allocations: 172.98 MB, max allowed: 9.07 GB). Tried to allocate 6.25 MB on private pool. Use PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.0 to disable upper limit for memory allocations (may cause system failure).",
    ),
    # jax-ml/jax#22522 (issue description)
    "pip-jaxlib-cuda-local-version": (
        "ERROR: Could not find a version that satisfies the requirement jaxlib==0.4.29+cuda12.cudnn88 (from versions: 0.1.75+cuda11.cudnn805, 0.1.75+cuda11.cudnn82)",
    ),
    # astral-sh/uv#12980 (issue description)
    "uv-torch-local-version-not-found": (
        "  ╰─▶ Because there is no version of torch==1.6.0+cu101 and your project depends on torch==1.6.0+cu101, we can conclude that your project's requirements are unsatisfiable.",
    ),
    # NVIDIA/TensorRT-LLM#23 (issue description); NVIDIA's CUDA Compatibility FAQ
    "ngc-container-driver-too-old": (
        "       version 510.85.02 was detected and compatibility mode is UNAVAILABLE.",
    ),
    # moyix/fauxpilot (a triton container started without a GPU: the version is empty)
    "ngc-container-driver-release-unknown": (
        "fauxpilot-triton-1         |        version  was detected and compatibility mode is UNAVAILABLE.",
    ),
    # triton-inference-server/server#3030 (issue description)
    # Lilypad-Tech/lilypad#548 (a Compose service without a GPU reservation)
    "loader-libcuda-not-found": (
        "/usr/local/bin/lilypad: error while loading shared libraries: libcuda.so.1: cannot open shared object file",
        "./main: error while loading shared libraries: libcuda.so: cannot open shared object file: No such file or directory",
    ),
    "loader-library-not-found": (
        "error while loading shared libraries: libnvinfer.so.7: cannot open shared object file: No such file or directory",
        "/usr/bin/app: error while loading shared libraries: libcudart.so.11.0: cannot open shared object file: No such file or directory",
        "./main: error while loading shared libraries: libcudnn_cnn_infer.so.8: cannot open shared object file: No such file or directory",
        "./main: error while loading shared libraries: libcudnn.so.8: cannot open shared object file: No such file or directory",
        "nvtop: error while loading shared libraries: libnvidia-ml.so.1: cannot open shared object file: No such file or directory",
        "python: error while loading shared libraries: libpython3.8.so.1.0: cannot open shared object file: No such file or directory",
    ),
    # arch4edu/arch4edu#24 (issue description, ldd's output)
    "ldd-library-not-found": (
        "\tlibcudart.so.10.0 => not found",
        "        libcudnn.so.7 => not found",
        "        libcudnn_ops_infer.so.8 => not found",
        "        libnvidia-ml.so.1 => not found",
        "        libopenblas.so.0 => not found",
    ),
    # NLeSC/mcfly#188 (issue description); Keras 2's other form from public reports
    "keras-checking-array-shape": (
        "ValueError: Error when checking target: expected activation_5 to have shape (6024,) but got array with shape (2,)",
        "ValueError: Error when checking target: expected gru_22 to have 2 dimensions, but got array with shape (8828, 122, 4)",
    ),
    # keras-team/keras-io (issue description), keras-team/keras (Keras 3's UserWarning)
    "keras-input-ran-out-of-data": (
        "WARNING:tensorflow:Your input ran out of data; interrupting training. Make sure that your dataset or generator can generate at least `steps_per_epoch * epochs` batches (in this case, 10000 batches). You may need to use the repeat() function when building your dataset.",
        "/env/lib/python3.11/site-packages/keras/src/trainers/epoch_iterator.py:151: UserWarning: Your input ran out of data; interrupting training. Make sure that your dataset or generator can generate at least `steps_per_epoch * epochs` batches. You may need to use the `.repeat()` function when building your dataset.",
    ),
    # NVIDIA/nvidia-docker#341 (issue description), kata-containers/kata-containers#10457
    "nvidia-smi-not-found": ("bash: nvidia-smi: command not found",),
    # NixOS/nixpkgs#259744 (a comment of 2023-10-13 quoting the error)
    "jax-component-older-than-build": (
        "CUDA backend failed to initialize: Found cuSOLVER version 11500, but JAX was built "
        "against version 11502, which is newer. The copy of cuSOLVER that is installed must be at "
        "least as new as the version against which JAX was built.",
        # MIT-REALM/gcbfplus#1 (issue description)
        "CUDA backend failed to initialize: Found cuDNN version 8600, but JAX was built against "
        "version 8906, which is newer. The copy of cuDNN that is installed must be at least as new "
        "as the version against which JAX was built. (Set TF_CPP_MIN_LOG_LEVEL=0 and rerun for "
        "more info.)",
    ),
    # PaddlePaddle/Paddle#26954 and #12965 (tests/corpus-holdout-2, read since issue 22)
    "paddle-cudnn-compiled-vs-machine": (
        "WARNING: device: 0. The installed Paddle is compiled with CUDNN 7.6, but CUDNN version in your machine is 7.3, which may cause serious incompatible bug. Please recompile or reinstall Paddle with compatible CUDNN version.",
    ),
    "paddle-libcudnn-header-unmatched": (
        "Check failed: (cudnn_cuh_major < 4 && cudnn_dso_major < 4) || (cudnn_cuh_major == cudnn_dso_major) [cudnn init] libcudnn v5 with header v7 unmatched!",
    ),
    "poetry-nvidia-no-candidates": (
        # WLM1ke/poptimizer#116 (Poetry on a MacBook)
        "Unable to find installation candidates for nvidia-cublas-cu11 (11.10.3.66)",
    ),
    "ptxas-too-old-driver-fallback": (
        # openxla/xla#5932 (issue description, an H800)
        "2023-09-26 23:49:25.317533: W external/xla/xla/stream_executor/gpu/redzone_allocator.cc:322] UNIMPLEMENTED: ptxas ptxas too old. Falling back to the driver to compile.",
    ),
    "ptxas-unknown-gpu-name": (
        # JuliaGPU/CUDA.jl#2844 (issue description, a V100 with CUDA 13)
        "ptxas fatal   : Value 'sm_70' is not defined for option 'gpu-name'",
    ),
    "conda-cpu-build-other": (
        # conda-forge/jaxlib-feedstock#273 (the classic solver's download table)
        "    jaxlib-0.4.27              |cpu_py312h17e8b90_0        51.3 MB  conda-forge",
    ),
    "library-file-not-loadable": (
        # measured: ctypes.CDLL on an 11-byte file and on a Git LFS pointer (glibc 2.36)
        "OSError: /tmp/libcublas.so.12: file too short",
        "OSError: /tmp/libcudnn.so.9: invalid ELF header",
        "OSError: /tmp/libgomp.so.1: file too short",
        # dusty-nv/jetson-containers#179; dusty-nv/jetson-inference#1061 (JetPack 4 containers)
        "ImportError: /usr/lib/aarch64-linux-gnu/libcublas.so.10: file too short",
        "./segnet-console: error while loading shared libraries: /usr/lib/aarch64-linux-gnu/libnvinfer.so.7: file too short",
    ),
    # NVIDIA/gpu-operator#234 (the driver container's log)
    "driver-build-kernel-headers-not-found": (
        "Error: Unable to find a match: kernel-headers-4.18.0-240.23.2.el8_3.x86_64 kernel-devel-4.18.0-240.23.2.el8_3.x86_64",
    ),
    # mesosphere/konvoy-image-builder#1200 (nvidia-installer's make output)
    "driver-module-gpl-only-symbol": (
        "ERROR: modpost: GPL-incompatible module nvidia.ko uses GPL-only symbol 'rcu_read_unlock_strict'",
    ),
    # pytorch/pytorch#3251 (issue description)
    "cudnn-symbol-missing": (
        "ImportError: /lib/python3.6/site-packages/torch/_C.cpython-36m-x86_64-linux-gnu.so: undefined symbol: cudnnSetConvolutionGroupCount",
    ),
    # pykeio/ort#523 (cargo's linker output)
    "glibc-too-old-at-link": (
        "undefined reference to `__isoc23_strtol@GLIBC_2.38'",
        "undefined reference to `__isoc23_strtoull@GLIBC_2.38'",
    ),
    # ziyujia/MSTGCN#1; neph1/FramePack#12 (tracebacks)
    "python-index-error": (
        "IndexError: index 5 is out of bounds for axis 0 with size 5",
        "IndexError: list index out of range",
    ),
    # microsoft/DirectML#107 (issue description)
    "wsl-d3d-cyclestats-notice": ("NVD3D10: CPU cyclestats are disabled on client virtualization",),
    "tf-matmul-shape-mismatch": (
        # measured: TensorFlow 2.21.0 on the CPU, tf.matmul(tf.ones([2,3]), tf.ones([2,3]))
        "W0000 00:00:1796173911.568945   12140 local_rendezvous.cc:412] Local rendezvous is aborting with status: INVALID_ARGUMENT: Matrix size-incompatible: In[0]: [2,3], In[1]: [2,3]",
    ),
    "windows-procedure-not-found": (
        # git-cloner/llama2-lora-fine-tuning#17 (Chinese Windows)
        "ImportError: DLL load failed while importing lib: 找不到指定的程序。",
        # zeyad-mansour/lunar#58 (issue description)
        'OSError: [WinError 127] The specified procedure could not be found. Error loading "C:\\Users\\Admin\\AppData\\Local\\Programs\\Python\\Python39\\lib\\site-packages\\torch\\lib\\c10_cuda.dll" or one of its dependencies.',
        # bmaltais/kohya_ss#486 (a French Windows)
        'OSError: [WinError 127] La procédure spécifiée est introuvable. Error loading "E:\\SSD\\SuperSD2.0\\kohya\\kohya_ss\\venv\\lib\\site-packages\\torch\\lib\\cudnn_adv_infer64_8.dll" or one of its dependencies.',
    ),
    "windows-dll-init-failed": (
        # 666ghj/BettaFish#428 (a Chinese Windows)
        'OSError: [WinError 1114] 动态链接库(DLL)初始化例程失败。 Error loading "C:\\Program Files\\Python311\\Lib\\site-packages\\torch\\lib\\c10.dll" or one of its dependencies.',
        # bitsandbytes-foundation/bitsandbytes#320 (llama_cpp's ctypes.CDLL)
        "OSError: [WinError 1114] A dynamic link library (DLL) initialization routine failed",
        # lazydog28/mc_auto_boss#205, Liberations/DouZero_For_HLDDZ_FullAuto#1 (Chinese Windows)
        "ImportError: DLL load failed while importing onnxruntime_pybind11_state: 动态链接库(DLL)初始化例程失败。",
        # babalae/better-genshin-impact#1741 (.NET's wording, Chinese Windows)
        "Unable to load DLL 'onnxruntime'or one of its dependencies: 动态链接库(DLL)初始化例程失败。(0x8007045A)",
    ),
    "windows-dll-or-dependency-missing": (
        # Djdefrag/QualityScaler#9 (the message without its error number)
        'The specified module could not be found. Error loading "torch\\lib\\caffe2_detectron_ops.dll" or one of its dependencies.',
        # hoffstadt/DearPyGui#559, HypoX64/DeepMosaics#154 (Chinese Windows)
        "DLL load failed while importing core: 找不到指定的模块。",
        "DLL load failed while importing _C: 找不到指定的模块。",
        # numpy/numpy#17648 (no blank after the colon)
        "Original error was: DLL load failed:找不到指定的模块。",
    ),
    "dlopen-failed": (
        # TF <= 2.12 LOG(WARNING) wording, §7 row 1; public log quoted in jax-ml/jax#3746
        "2021-04-09 19:52:41.024315: W tensorflow/stream_executor/platform/default/dso_loader.cc:60] Could not load dynamic library 'libcudart.so.11.0'; dlerror: libcudart.so.11.0: cannot open shared object file: No such file or directory",
        # the same with the LD_LIBRARY_PATH tail, public log in ali-vilab/dreamtalk#32
        "2024-02-25 18:52:47.991396: W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic library 'libcudart.so.11.0'; dlerror: libcudart.so.11.0: cannot open shared object file: No such file or directory; LD_LIBRARY_PATH: /usr/local/lib/python3.10/dist-packages/cv2/../../lib64:/usr/lib64-nvidia",
        # newer VLOG(1) form, TF 2.21 no-GPU log with TF_CPP_MAX_VLOG_LEVEL=1 (verbatim, "…" included)
        "I0000 … dso_loader.cc:144] Could not load dynamic library 'libcuda.so.1'; dlerror: libcuda.so.1: cannot open shared object file: No such file or directory",
        # Windows variant, §7 row 1 ("dlerror: <file> not found"), file name from §5.2 (CUDA 11)
        "W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic library 'cudart64_110.dll'; dlerror: cudart64_110.dll not found",
        # TensorRT, §7 row 22 (TensorRT 7 for TF 2.4-2.12)
        "Could not load dynamic library 'libnvinfer.so.7'; dlerror: libnvinfer.so.7: cannot open shared object file: No such file or directory",
        # TF 2.1's wording (deepfakes/faceswap#1004)
        "tensorflow/stream_executor/platform/default/dso_loader.cc:53] Could not dlopen library 'libcudart.so.10.0'; dlerror: libcudart.so.10.0: cannot open shared object file: No such file or directory",
    ),
    "dlopen-failed-tf1": (
        # tensorflow/docs install errors page (Stack Overflow 41007279)
        r"[...\stream_executor\dso_loader.cc] Couldn't open CUDA library nvcuda.dll",
        # TF 1.x Linux log as quoted in public Dockerfiles/READMEs
        "I tensorflow/stream_executor/dso_loader.cc:99] Couldn't open CUDA library libcudnn.so. LD_LIBRARY_PATH: ",
    ),
    "cudnn-dso-unloadable-tf1": (
        # tensorflow/docs install errors page (Stack Overflow 41007279)
        r"[...\stream_executor\cuda\cuda_dnn.cc] Unable to load cuDNN DSO",
    ),
    "cannot-dlopen-gpu-libraries": (
        # §7 row 3 verbatim
        "Cannot dlopen some GPU libraries. Please make sure the missing libraries mentioned above are installed properly if you would like to use GPU. Follow the guide at https://www.tensorflow.org/install/gpu for how to download and setup the required libraries for your platform.",
    ),
    "skipping-gpu-registration": (
        # §7 row 3 (second line)
        "Skipping registering GPU devices...",
    ),
    "cudart-dlerror-hint": (
        # §7 row 4; public log in jax-ml/jax#3746
        "2021-04-09 19:52:41.024341: I tensorflow/stream_executor/cuda/cudart_stub.cc:29] Ignore above cudart dlerror if you do not have a GPU set up on your machine.",
    ),
    "cuda-drivers-not-found": (
        # TF 2.21 no-GPU log, verbatim
        "I0000 00:00:1796003927.553652    7803 cudart_stub.cc:31] Could not find cuda drivers on your machine, GPU will not be used.",
    ),
    "cuda-runtime-unloadable": (
        # §7 row 26 (cuda_executor.cc:1737); public TF 2.18+ log
        "E0000 00:00:1774280007.952579  246635 cuda_executor.cc:1737] INTERNAL: CUDA Runtime error: Failed call to cudaGetRuntimeVersion: Error loading CUDA libraries. GPU will not be used.: Error loading CUDA libraries. GPU will not be used.",
    ),
    "cudnn-version-undetermined": (
        # §7 row 26 verbatim core
        "W0000 00:00:1774280007.952826  246748 cuda_executor.cc:1755] Failed to determine cuDNN version (Note that this is expected if the application doesn't link the cuDNN plugin): …",
    ),
    "import-error-missing-library": (
        # §7 row 29 (TF 1.13 DT_NEEDED)
        "ImportError: libcublas.so.10.0: cannot open shared object file: No such file or directory",
        # microsoft/onnxruntime#2642 (onnxruntime's warning before the import fails)
        "/home/t-wulin/anaconda3/lib/python3.6/site-packages/onnxruntime/capi/_pybind_state.py:12: UserWarning: Cannot load onnxruntime.capi. Error: 'libcublas.so.9.1: cannot open shared object file: No such file or directory'",
        # opencv/opencv-python#370, fisher60/friendo-bot#68 (OpenCV in a slim image: not CUDA)
        "ImportError: libGL.so.1: cannot open shared object file: No such file or directory",
        "bot_1  | ImportError: libgthread-2.0.so.0: cannot open shared object file: No such file or directory",
        # abetlen/llama-cpp-python#1822 (its loader's RuntimeError)
        "RuntimeError: Failed to load shared library '.../libllama.so': libcudart.so.12: cannot open shared object file: No such file or directory",
        # facebookarchive/caffe2#1115
        "CRITICAL:root:Cannot load caffe2.python. Error: libcudart.so.8.0: cannot open shared object file: No such file or directory",
    ),
    "msvc-runtime-missing": (
        # §7 row 27 / §6.3 (self_check.py, TF 2.3-2.10 on Windows)
        "ImportError: Could not find the DLL(s) 'msvcp140_1.dll'. TensorFlow requires that these DLLs be installed in a directory that is named in your %PATH% environment variable. You may install these DLLs by downloading \"Microsoft C++ Redistributable for Visual Studio 2015, 2017 and 2019\" for your platform from this URL: https://support.microsoft.com/help/2977003/the-latest-supported-visual-c-downloads",
    ),
    "tf1-windows-dll-missing": (
        # §7 row 30 / §6.3 (self_check.py of tensorflow-gpu 1.5)
        "ImportError: Could not find 'cudart64_90.dll'. TensorFlow requires that this DLL be installed in a directory that is named in your %PATH% environment variable. Download and install CUDA 9.0 from this URL: https://developer.nvidia.com/cuda-90-download-archive",
        # tensorflow/tensorflow#13837 (a comment: the output of the self-check script before it)
        "- Could not load 'cudart64_80.dll'. The GPU version of TensorFlow",
    ),
    "python-not-64-bit": (
        # §6.3 (self_check.py on master), "%d" filled with 32
        "TensorFlow requires a 64-bit Python interpreter, but this interpreter is 32-bit",
    ),
    "cudnn-library-load-failed-windows": (
        # the Windows seed, tests/seeds/003_ffdd21011fc4f8ff.txt line 255 (TF 2.8, cuDNN 8.4.0)
        "Could not load library cudnn_cnn_infer64_8.dll. Error code 193",
        # §6.2 (AlexeyAB/darknet#8239, cuDNN 8.3.0)
        "Could not load library cudnn_cnn_infer64_8.dll. Error code 126",
        # §6.2 (lightvector/KataGo#828, 32-bit zlibwapi.dll)
        "Could not load library zlibwapi.dll. Error code 193. Please verify that the library is built correctly for your processor architecture (32-bit, 64-bit)",
    ),
    "cudnn-library-load-failed-linux": (
        # public WSL logs (PyTorch forum thread 164661): dlerror names the driver library
        "Could not load library libcudnn_cnn_infer.so.8. Error: libcuda.so: cannot open shared object file: No such file or directory",
    ),
    "cudnn-library-path-hint": (
        # §6.2
        "Please make sure cudnn_cnn_infer64_8.dll is in your library path!",
    ),
    "cudnn-sublibrary-not-located": (
        # PaddlePaddle/Paddle#54767 (its title and log), ILikeAI/AlwaysReddy#40 (its title)
        "Could not locate cudnn_ops_infer64_8.dll. Please make sure it is in your library path!",
        "Could not locate cudnn_cnn_infer64_8.dll. Please make sure it is in your library path!",
    ),
    "framework-module-not-found": (
        # tensorflow/tensorflow#5478 (a comment's Python 3.5 session), tensorflow/tensorflow#42297
        "ImportError: No module named 'tensorflow'",
        "ModuleNotFoundError: No module named 'tensorflow'",
    ),
    "framework-module-not-in-pip-build": (
        # Yankai96/IBISAgent#2 (pip building flash-attn, the build hook's traceback)
        "      ModuleNotFoundError: No module named 'torch'",
    ),
    "ollama-driver-too-old-or-missing": (
        # ollama/ollama#6604 (the server log a maintainer quoted)
        'time=2024-09-03T16:36:00.853+08:00 level=DEBUG source=gpu.go:537 msg="Unable to load cudart" library=C:\\Users\\asus\\AppData\\Local\\Programs\\Ollama\\lib\\ollama\\cudart64_12.dll error="your nvidia driver is too old or missing.  If you have a CUDA GPU please upgrade to run ollama"',
    ),
    "ollama-driver-below-required": (
        # ollama/ollama#16415 (the reporter's follow-up, "the most important line")
        'msg="NVIDIA driver too old" device="NVIDIA GeForce GTX 1070 Ti" compute=6.1 driver=535 required_driver="570 or newer"',
    ),
    "triton-no-c-compiler": (
        # apple/ml-cross-entropy#5 (the issue's traceback)
        "RuntimeError: Failed to find C compiler. Please specify via CC environment variable.",
    ),
    "pip-jax-cuda-plugin-not-found": (
        # google-gemma/cookbook#238 (its title, pip on an Apple M2 Mac)
        "ERROR: No matching distribution found for jax-cuda12-pjrt",
    ),
    "vllm-linux-only": (
        # RUC-NLPIR/FlashRAG#5, sgl-project/sglang#508 (installing on Apple Silicon)
        "AssertionError: vLLM only supports Linux platform (including WSL).",
    ),
    "nccl-bootstrap-no-interface": (
        # EasonXiao-888/MambaTree#14 (its traceback), marin-community/marin#7018 (JAX's form)
        "Bootstrap : no socket interface found",
        "invalid usage ... Last NCCL warning(error): 'Bootstrap : no socket interface found'",
    ),
    "xmr-stak-arch-not-compiled": (
        # fireice-uk/xmr-stak#258 (the miner's output)
        "WARNING: NVIDIA GPU 0: miner not compiled for the gpu architecture 21.",
    ),
    "zlibwapi-missing": (
        # §6.2 (microsoft/onnxruntime#17510)
        "Could not locate zlibwapi.dll. Please make sure it is in your library path!",
    ),
    "cudnn-runtime-compiled-mismatch": (
        # §7 row 6 wording; public Colab log (googlecolab/colabtools#2329, 8.0.5 vs 8.1.0)
        "2021-11-24 04:51:47.954507: E tensorflow/stream_executor/cuda/cuda_dnn.cc:362] Loaded runtime CuDNN library: 8.0.5 but source was compiled with: 8.1.0.  CuDNN library needs to have matching major version and equal or higher minor version. If using a binary install, upgrade your CuDNN library.  If building from sources, make sure the library loaded at runtime is compatible with the version specified during compile configuration.",
        # §7 row 6a (older wording); versions of tensorflow/tensorflow#39842
        "Loaded runtime CuDNN library: 7.5.0 but source was compiled with: 7.6.5.  CuDNN library major and minor version needs to match or have higher minor version in case of CuDNN 7.0 or later version. If using a binary install, upgrade your CuDNN library.",
        # §7 row 6, TF 2.19 on Kaggle (9.1.0 vs 9.3.0), 2.16+ path prefix
        "E external/local_xla/xla/stream_executor/cuda/cuda_dnn.cc:447] Loaded runtime CuDNN library: 9.1.0 but source was compiled with: 9.3.0.  CuDNN library needs to have matching major version and equal or higher minor version.",
        # jade-hpc-gpu/jade-hpc-gpu.github.io#86 (the line as quoted there, with "the source")
        "Loaded runtime CuDNN library: 7.0.5 but the source was compiled with: 7.1.4.",
    ),
    "cudnn-runtime-compiled-mismatch-encoded": (
        # §7 row 6b verbatim (TF 1.5-1.8)
        "E tensorflow/stream_executor/cuda/cuda_dnn.cc:378] Loaded runtime CuDNN library: 7101 (compatibility version 7100) but source was compiled with 7004 (compatibility version 7000).  If using a binary install, upgrade your CuDNN library to match.  If building from sources, make sure the library loaded at runtime matches a compatible version specified during compile configuration.",
    ),
    "dnn-init-failed": (
        # §7 row 6 (second line)
        "DNN library initialization failed. Look at the errors above for more details.",
    ),
    "cudnn-handle-failed": (
        # §7 row 7; TF 1.x log quoted in a public script
        "tensorflow/stream_executor/cuda/cuda_dnn.cc:334] Could not create cudnn handle: CUDNN_STATUS_INTERNAL_ERROR",
        # lower-case TF 1.x wording, public write-up
        "could not create cudnn handle: CUDNN_STATUS_ALLOC_FAILED",
    ),
    "possibly-insufficient-driver": (
        # §7 row 7, "…" filled with a driver version
        "Possibly insufficient driver version: 418.67.0",
    ),
    "convolution-algorithm-failed": (
        # §7 row 8 verbatim
        "tensorflow.python.framework.errors_impl.UnknownError: Failed to get convolution algorithm. This is probably because cuDNN failed to initialize, so try looking to see if a warning log message was printed above.",
    ),
    "dnn-library-not-found": (
        # §7 row 9 (UnimplementedError("DNN library is not found."))
        "tensorflow.python.framework.errors_impl.UnimplementedError: DNN library is not found.",
    ),
    "cudnn-loaded-version": (
        # §7 row 25 / §4.4
        "I tensorflow/stream_executor/cuda/cuda_dnn.cc:384] Loaded cuDNN version 8900",
    ),
    "plugin-factory-already-registered": (
        # §7 row 24; public TF 2.16+ log
        "E0000 00:00:1739486925.821562  176814 cuda_dnn.cc:8310] Unable to register cuDNN factory: Attempting to register factory for plugin cuDNN when one has already been registered",
    ),
    "driver-insufficient-for-runtime": (
        # §7 row 10 verbatim
        "cudaGetDevice() failed. Status: CUDA driver version is insufficient for CUDA runtime version",
    ),
    "cuinit-failed": (
        # TF 2.21 no-GPU log, verbatim (no libcuda.so.1)
        "E0000 00:00:1796003932.146744    7803 cuda_platform.cc:52] failed call to cuInit: INTERNAL: CUDA error: Failed call to cuInit: UNKNOWN ERROR (303)",
        # TF 2.21 with a fake libcuda.so.1 whose cuInit returns 100, verbatim
        "failed call to cuInit: INTERNAL: CUDA error: Failed call to cuInit: UNKNOWN ERROR (100)",
        # §7 row 11
        "failed call to cuInit: CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected",
    ),
    "kernel-driver-not-running": (
        # TF 2.21 no-GPU log, verbatim
        "I0000 … cuda_diagnostics.cc:145] kernel driver does not appear to be running on this host (<hostname>): /proc/driver/nvidia/version does not exist",
    ),
    "kernel-dso-version-mismatch": (
        # §7 row 13 wording; public log (driver upgraded without reboot)
        "2021-09-13 23:57:29.694695: E tensorflow/stream_executor/cuda/cuda_diagnostics.cc:306] kernel version 460.56.0 does not match DSO version 470.57.2 -- cannot find working devices in this configuration",
    ),
    "nvml-driver-library-mismatch": (
        # nvidia-smi after a driver update without reboot (public logs)
        "Failed to initialize NVML: Driver/library version mismatch",
        # the short form named in the brief
        "NVML: Driver/library version mismatch",
        # Syllo/nvtop#95 (nvtop's own wording)
        "Impossible to initialize nvidia nvml : Driver/library version mismatch",
        # nvidia-container-cli, public docker logs
        "nvidia-container-cli: initialization error: nvml error: driver/library version mismatch: unknown",
    ),
    "nvml-rm-version-mismatch": (
        # pynvml exception text (nvidia-ml-py, NVML_ERROR_LIB_RM_VERSION_MISMATCH)
        "pynvml.NVMLError_LibRmVersionMismatch: RM has detected an NVML/RM version mismatch.",
        # tensorpack/tensorpack#1244 (the return code by its name)
        "> tensorpack.utils.nvml.NvmlException: NVML_ERROR_LIB_RM_VERSION_MISMATCH",
    ),
    "nvidia-smi-no-driver": (
        # nvidia-smi without a loaded driver (public logs)
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running.",
    ),
    "driver-older-than-ptxas": (
        # §7 row 20, values of its example (driver 12.4, ptxas 12.5.40)
        "The NVIDIA driver's CUDA version is 12.4 which is older than the ptxas CUDA version (12.5.40). Because the driver is older than the ptxas version, XLA is disabling parallel compilation, which may slow down compilation. You should update your NVIDIA driver or use the NVIDIA-provided CUDA forward compatibility packages.",
        # the 2024+ wording of openxla/xla nvptx_compiler.cc ChooseLinkingMethod, from a public
        # AlphaFold 3 run log (nvptx_compiler.cc:930)
        "2025-03-04 12:55:32.285132: W external/xla/xla/service/gpu/nvptx_compiler.cc:930] The NVIDIA driver's CUDA version is 12.4 which is older than the PTX compiler version 12.6.77. Because the driver is older than the PTX compiler version, XLA is disabling parallel compilation, which may slow down compilation. You should update your NVIDIA driver or use the NVIDIA-provided CUDA forward compatibility packages.",
    ),
    "unsupported-ptx-version": (
        # TF 2.18.0 on a Tesla T4, CY-CHENYUE/ComfyUI-Molmo#26
        "2025-02-01 13:44:34.523685: W tensorflow/compiler/mlir/tools/kernel_gen/tf_gpu_runtime_wrappers.cc:40] 'cuModuleLoadData(&module, data)' failed with 'CUDA_ERROR_UNSUPPORTED_PTX_VERSION'",
        # cudaGetErrorString(222) as PyTorch raises it, huggingface/text-generation-inference#1026
        "RuntimeError: CUDA error: the provided PTX was compiled with an unsupported toolchain.",
    ),
    "cuda-error-architecture-not-supported": (
        # rigelminer/rigel#106 (GTX 760) and #265 (B300)
        "GPU#0 error: CUDA error: architecture (30) is not supported",
        "[2026-04-15 17:21:31] GPU#0 error: CUDA error: architecture (103) is not supported",
    ),
    "keras-output-missing-from-loss": (
        # salman-h-khan/PL-ZSD_Release#9
        'train_vocab_w2v.py:367: UserWarning: Output "nms" missing from loss dictionary. We assume '
        'this was done on purpose, and we will not be expecting any data to be passed to "nms" '
        "during training.",
    ),
    "torch-output-broadcast-shape": (
        # dvl-tum/group_loss#7, vfcosta/coegan#1
        "RuntimeError: output with shape [1, 227, 227] doesn't match the broadcast shape [3, 227, 227]",
        "RuntimeError: output with shape [1, 28, 28] doesn't match the broadcast shape [3, 28, 28]",
    ),
    "torch-index-put-shape-mismatch": (
        # clive819/Modified-DETR#8
        "RuntimeError: shape mismatch: value tensor of shape [92] cannot be broadcast to indexing "
        "result of shape [40]",
    ),
    "torch-view-shape-invalid": (
        # AILab-CVC/YOLO-World#207
        "shape '[1, -1, 1203]' is invalid for input of size 12800",
    ),
    "conda-pytorch-cuda-on-macos": (
        # myshell-ai/OpenVoice#38 (Platform: osx-arm64)
        "  - nothing provides cuda 11.7.* needed by pytorch-cuda-11.7-h67b0de4_0",
        "└─ pytorch-cuda 11.7**  is not installable because it requires",
    ),
    "torch-ddp-no-unused-parameters": (
        # cszn/KAIR#103
        "[W reducer.cpp:1303] Warning: find_unused_parameters=True was specified in DDP "
        "constructor, but did not find any unused parameters in the forward pass. ",
    ),
    "deepspeed-launcher-no-slot": (
        # deepspeedai/DeepSpeed#5818
        "ValueError: No slot '2' specified on host 'localhost'",
    ),
    "matlab-cuda-driver-too-old": (
        # MouseLand/Kilosort#241, the message as one line (MATLAB wraps it in the console)
        "    The CUDA driver was found, but it is too old. The CUDA driver on your system supports "
        "CUDA version 5.5. The required CUDA version is 7.5 or greater.",
    ),
    "cuda-jl-driver-no-supported-toolkit": (
        # JuliaGPU/CUDA.jl#2231
        "Error: CUDA driver 8.0.0 is not compatible with any supported CUDA toolkit (11.4.4, "
        "11.5.2, 11.6.2, 11.7.1, 11.8.0, 12.0.1, 12.1.1, 12.2.2 or 12.3.1)",
    ),
    "optix-unsupported-abi": (
        # owl-project/NVISII#40
        "Optix call (optixInit()) failed with code 7801 (line 150)",
    ),
    "candle-shape-mismatch": (
        # huggingface/candle#811
        "thread 'main' panicked at 'called `Result::unwrap()` on an `Err` value: "
        'ShapeMismatchBinaryOp { lhs: [2, 4, 1], rhs: [1, 3], op: "matmul" }\'',
    ),
    "candle-matmul-non-contiguous": (
        # huggingface/candle#1948
        "Error: WithBacktrace { inner: Cuda(MatMulNonContiguous { lhs_stride: [16384, 1], "
        "rhs_stride: [1, 2048], mnk: (1, 32, 2048) }),",
    ),
    "nvidia-docker-v1-driver-volume-gone": (
        # NVIDIA/nvidia-docker#493 and #416
        "Error response from daemon: get nvidia_driver_381.22: no such volume: nvidia_driver_381.22",
        "Error response from daemon:error while mounting  volume'/var/lib/nvidia-docker/volumes/"
        "nvidia_driver/352.63'\uff1bno such volume:nvidia_driver_352.63.",  # (a full-width ;)
    ),
    "nvidia-modeset-version-mismatch": (
        # voidlinux/void-packages#5745
        "nvidia-modeset: Version mismatch: nvidia.ko(378.13) nvidia-modeset(375.26)",
    ),
    "nvidia-gsp-firmware-version-mismatch": (
        # Nobara-Project/rpm-sources#526
        "NVRM: GPU0 _kgspFwContainerVerifyVersion: GSP firmware image version mismatch:",
    ),
    "dkms-nvidia-build-failed-xbps": (
        # void-linux/void-packages#16778 (older xbps: no quotes)
        "Building DKMS module: nvidia-390.132... FAILED!",
        # void-linux/void-packages#61087
        "Building DKMS module 'nvidia-580.142' for kernel-7.1.0_1... FAILED!",
        "DKMS module 'nvidia-580.142' failed to build, please check /var/lib/dkms",
    ),
    "kmod-nvidia-module-not-found": (
        # NVlabs/nvbio-gpl#7
        "modprobe: ERROR: ../libkmod/libkmod-module.c:809 kmod_module_insert_module() could not "
        "find module by name='nvidia_331_uvm'",
    ),
    "trex-launch-failed-overclock": (
        # trexminer/T-Rex#546
        "TREX: Can't find nince with device [ID=4, GPU: #4], cuda exception: "
        "CUDA_ERROR_LAUNCH_FAILED, try to reduce overclock to stabilize GPU state.",
    ),
    "yolo-label-class-exceeds-model": (
        # ultralytics/yolov3#678 and #1762
        "AssertionError: Target classes exceed model classes",
        "AssertionError: Label class 24 exceeds nc=24 in yolo.yaml. Possible class labels are 0-23",
    ),
    "cuda-launch-out-of-resources": (
        # kokkos/kokkos#1299
        '03:39:49 C++ exception with description "cudaGetLastError() error( '
        "cudaErrorLaunchOutOfResources): too many resources requested for launch",
    ),
    "jax-cpu-only-on-tpu": (
        # AI-Hypercomputer/RecML#9
        "WARNING:2025-04-06 19:31:14,948:jax._src.xla_bridge:971: A Google TPU may be present on "
        "this machine, but either a TPU-enabled jaxlib or libtpu is not installed. Falling back to "
        "cpu.",
    ),
    "cudnn-torch-library-not-found": (
        # jcjohnson/neural-style#284
        "/usr/local/bin/luajit: /usr/local/share/lua/5.1/trepl/init.lua:384: /usr/local/share/lua/"
        "5.1/trepl/init.lua:384: /usr/local/share/lua/5.1/cudnn/ffi.lua:1598: 'libcudnn (R5) not "
        "found in library path.",
    ),
    "cudnn-torch-bindings-other-release": (
        # soumith/cudnn.torch#359
        "These bindings are for CUDNN 5.x (5005 <= cudnn.version > 6000) , while the loaded CuDNN "
        "is version: 6020  ",
    ),
    "theano-cudnn-too-old": (
        # Theano/Theano#4437
        "Using gpu device 1: Tesla K20Xm (CNMeM is disabled, cuDNN Version is too old. Update to "
        "v5, was 3007.)",
    ),
    "linker-cannot-find-libcudnn": (
        # Theano/Theano#4294
        "/usr/bin/ld: cannot find -lcudnn",
    ),
    "linker-library-wrong-format": (
        # davisking/dlib#885
        "/usr/local/cuda-8.0/lib64/libcudnn.so: error adding symbols: File in wrong format",
    ),
    "optix-library-not-found": (
        # NVIDIA/OWL#12 (OptiX 9 samples, driver 580)
        "Optix call (optixInit()) failed with code 7804 (line 157)",
    ),
    "r-torch-cuda-library-unable-to-open": (
        # mlverse/torch#1066 (R torch 0.10.0, Ubuntu 22.04)
        "! /home/server/R/x86_64-pc-linux-gnu-library/4.1/torch/lib/liblantern.so - "
        "libcudart.so.11.0: Unable to open shared object file: there is no file or directory "
        "available",
    ),
    "matlab-cuda-driver-not-loaded": (
        # chenjoya/Vehicle_Detection_Recognition#4 (an AMD card)
        "    The CUDA driver could not be loaded. The library name used was 'nvcuda.dll'. The "
        "error was:",
    ),
    "ethminer-cuda-out-of-memory": (
        # ethereum-mining/ethminer#1929
        "Unexpected error CUDA error in func dev::eth::CUDAMiner::initEpoch_internal at line 130 "
        "out of memory on CUDA device 07:00.0",
    ),
    "julia-dimension-mismatch": (
        # FluxML/GeometricFlux.jl#264
        'ERROR: LoadError: DimensionMismatch("array could not be broadcast to match destination")',
    ),
    "flux-loss-size-mismatch": (
        # sdobber/FluxArchitectures.jl#34
        "\u250c Warning: Size mismatch in loss function! In future this will be an error. In Flux "
        "<= 0.12 broadcasting accepts this, but may not give sensible results",
    ),
    "hashcat-kernel-exec-timeout": (
        # hashcat/hashcat#4095 (Windows 11)
        "WARNING! Kernel exec timeout is not disabled.",
    ),
    "chainer-type-check-dtype": (
        "Invalid operation is performed in: Convolution2DFunction (Forward)",
        # yusuketomoto/chainer-char-rnn#2
        "chainer.utils.type_check.InvalidType: Expect: in_types[0].dtype == <type 'numpy.int32'>",
    ),
    "cntk-gpu-device-id-minus-one": (
        # zakki/Ray#142
        "  what():  Specified GPU device id (4294967295) is invalid.",
    ),
    "triton-shared-memory-beyond-any-gpu": (
        # state-spaces/mamba#387 (a head dimension of 512)
        "triton.runtime.autotuner.OutOfResources: out of resource: shared memory, Required: "
        "663808, Hardware limit: 101376. Reducing block sizes or `num_stages` may help.",
    ),
    "vllm-prompt-longer-than-max-model-len": (
        # google/tunix#222
        "ValueError: The decoder prompt (length 44) is longer than the maximum model length of 16. "
        "Make sure that `max_model_len` is no smaller than the number of text tokens.",
    ),
    "bitsandbytes-no-binary-for-torch-cuda": (
        # lllyasviel/stable-diffusion-webui-forge#2712 (RTX 50-series, CUDA 12.8 torch)
        "WARNING:bitsandbytes.cextension:Could not find the bitsandbytes CUDA binary at "
        "WindowsPath('G:/Data/Packages/stable-diffusion-webui-forge/venv/lib/site-packages/"
        "bitsandbytes/libbitsandbytes_cuda128.dll')",
    ),
    "dlib-cudamalloc-out-of-memory": (
        # ageitgey/face_recognition#549 (a GTX 1060, large images)
        "RuntimeError: Error while calling cudaMalloc(&data, n) in file "
        "C:\\Users\\Gavan\\dlib-master\\dlib\\cuda\\cuda_data_ptr.cpp:28. code: 2, reason: out of "
        "memory",
    ),
    "tf-allocation-exceeds-system-memory-notice": (
        # PINTO0309/Tensorflow-bin#13 (ARMv7)
        "<br>Allocation of 4000000 exceeds 10% of system memory",
    ),
    "tf-label-outside-range": (
        # vrenkens/nabu#9
        "InvalidArgumentError (see above for traceback): Received a label value of 48 which is "
        "outside the valid range of [0, 40).  Label values: 1 23 24 47 11 39 5 1 1 39 19 31 47",
    ),
    "opencv-dnn-input-channels": (
        # by256/imagedataextractor#13 (an RGBA image)
        "error: OpenCV(4.5.5) /io/opencv/modules/dnn/src/layers/convolution_layer.cpp:404: error: "
        "(-2:Unspecified error) Number of input channels should be multiple of 3 but got 4 in "
        "function 'getMemoryShapes'",
    ),
    "tf1-feed-shape-mismatch": (
        # zhangyhuaee/KinD#16 (an RGBA image)
        "ValueError: Cannot feed value of shape (1, 338, 500, 4) for Tensor 'input_decom:0', which "
        "has shape '(?, ?, ?, 3)'",
    ),
    "torch-version-cuda-query": (
        # opendatalab/MinerU#240 (Windows, a CPU-only torch)
        ">>> print(torch.version.cuda) ",
    ),
    "torch-gpu-capability-amd-rocm-too-old": (
        # follows torch-gpu-capability-amd-rocm: PyTorch 1.4 for ROCm on a Vega
        # (ROCm/legacy-rocm-build#1113)
        "    Found GPU0 Vega 10 XT [Radeon RX Vega 64] which is of cuda capability 3.0.\n"
        "    PyTorch no longer supports this GPU because it is too old.",
    ),
    "pycuda-device-arch-unknown-to-nvcc": (
        # follows pycuda-compiles-for-device-arch: PyCUDA's compile command, then nvcc's answer
        # (inducer/pycuda#272, a compute capability 3.0 GPU with CUDA 11.2)
        "[command: nvcc --cubin -arch sm_30 -I/home/vlad/.local/lib/python3.8/site-packages/"
        "pycuda/cuda kernel.cu]\n[stderr:\n"
        "nvcc fatal   : Value 'sm_30' is not defined for option 'gpu-architecture'",
    ),
    "torch-gpu-capability-range-minor-past-newest": (
        # follows torch-gpu-capability-too-old, read with its line: PyTorch 2.9.1 on a DGX Spark
        # (pytorch/pytorch#172629), the warning over three lines
        "UserWarning:\n    Found GPU0 NVIDIA GB10 which is of cuda capability 12.1.\n"
        "    Minimum and Maximum cuda capability supported by this version of PyTorch is\n"
        "    (8.0) - (12.0) ",
    ),
    "ort-provider-cuda-dependency-missing": (
        # ONNX Runtime 1.17+ on Windows names the provider's missing dependency
        # (deepbeepmeep/Wan2GP#1513: a CUDA 12 build where only CUDA 13 was installed)
        # a CUDA 12 cuDNN guide's quote of the error (cudnn64_9.dll on no PATH)
        'Error loading "onnxruntime_providers_cuda.dll" which depends on "cudnn64_9.dll" which is missing.',
        '2026-02-10 00:58:04.5745265 [E:onnxruntime:Default, provider_bridge_ort.cc:2195 onnxruntime::TryGetProviderInfo_CUDA] D:\\a\\_work\\1\\s\\onnxruntime\\core\\session\\provider_bridge_ort.cc:1778 onnxruntime::ProviderLibrary::Get [ONNXRuntimeError] : 1 : FAIL : Error loading "C:\\Users\\me\\.conda\\envs\\wan2gp\\Lib\\site-packages\\onnxruntime\\capi\\onnxruntime_providers_cuda.dll" which depends on "cublasLt64_12.dll" which is missing. (Error 126: "The specified module could not be found.")',
    ),
    "paddle-device-count-error-35": (
        # PaddlePaddle/Paddle#22576 (paddlepaddle-gpu 1.6.3.post107 on CUDA 9.2)
        "Error: cudaGetDeviceCount failed in paddle::platform::GetCUDADeviceCountImpl, error code : 35, Please see detail in https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__TYPES.html#group__CUDART__TYPES_1g3f51e3575c2178246db0a94a430e0038 at (/paddle/paddle/fluid/platform/gpu_info.cc:67)",
    ),
    "caffe-out-of-memory-bytes": (
        # NVIDIA/DIGITS#2015 (batch size too large)
        "ERROR: Out of memory: failed to allocate 148684800 bytes on device 0",
    ),
    "ollama-cpu-without-avx": (
        # ollama/ollama#7585 (a VM without AVX)
        'time=2024-11-09T18:44:42.976+08:00 level=WARN source=gpu.go:252 msg="CPU does not have minimum vector extensions, GPU inference disabled. Required:avx Detected:no vector extensions"',
        # ollama/ollama#6827 (the structured form)
        'WARN source=gpu.go:222 msg="CPU does not have minimum vector extensions, GPU inference disabled" required=avx detected="no vector extensions"',
    ),
    "chainer-cupy-util-missing": (
        # cupy/cupy#4696 (Chainer v7 under CuPy v8)
        "(see https://github.com/chainer/chainer#installation).No module named 'cupy.util'",
    ),
    "torch-legacy-thnn-mixed-devices": (
        # pytorch/pytorch#547 (the input left on the CPU)
        "TypeError: FloatSpatialConvolutionMM_updateOutput received an invalid combination of arguments - got (int, torch.FloatTensor, torch.FloatTensor, torch.cuda.FloatTensor, torch.cuda.FloatTensor, torch.FloatTensor, torch.FloatTensor, int, int, int, int, int, int), but expected (int state, torch.FloatTensor input, torch.FloatTensor output, torch.FloatTensor weight, [torch.FloatTensor bias or None], torch.FloatTensor finput, torch.FloatTensor fgradInput, int kW, int kH, int dW, int dH, int padW, int padH)",
    ),
    "caffe-label-not-below-num-classes": (
        # chuanqi305/MobileNet-SSD#65 (the class count did not match the data)
        "F0125 16:57:07.136848 17168 bbox_util.cu:599] Check failed: label < num_classes (2 vs. 2)",
    ),
    "darknet-out-of-memory-hint": (
        # AlexeyAB/darknet#5380 (out of memory partway through training)
        " try to set subdivisions=64 in your cfg file",
    ),
    # colmap/colmap#1797 (the loader's dialog text)
    "windows-dll-not-found-dialog": (
        "The code execution cannot proceed because cudart64_110.dll was not found. Reinstalling the program may fix this problem",
    ),
    # jcuda/jcuda-samples#9 (issue description)
    "jcuda-natives-not-loaded": (
        'Exception in thread "main" java.lang.UnsatisfiedLinkError: Error while loading native library "JCurand-10.2.0-windows-x86_64"',
    ),
    # trexminer/T-Rex#108 (issue description)
    "miner-nvml-monitoring-disabled": (
        "20201211 21:00:17 WARN: NVML is disabled. You won't see GPUs stats.",
        "20201211 21:00:17 WARN: Can't initialize NVML. GPU monitoring will be disabled.",
    ),
    # JuliaAttic/CUDArt.jl#24 (issue description)
    "julia-deprecation-warning": ("WARNING: uint32(x) is deprecated, use UInt32(x) instead.",),
    # chainer/chainer#3266 (issue description); mil-tokyo/webdnn#488 (issue description)
    "chainer-numpy-and-cupy-mixed": ("ValueError: numpy and cupy must not be used together",),
    # Theano/Theano#5972 (issue description)
    "theano-old-cuda-backend-deprecated": (
        "WARNING (theano.sandbox.cuda): The cuda backend is deprecated and will be removed in the next release (v0.10).  Please switch to the gpuarray backend. You can get more information about how to switch at this URL:",
    ),
    # pytorch/pytorch#665 (CMake's output, the architecture autodetected)
    "cmake-unknown-cuda-architecture": (
        "  Unknown CUDA Architecture Name 2.1(2.0) in CUDA_SELECT_NVCC_ARCH_FLAGS",
    ),
    # circleLZY/JL1-CD#5 (mim install mmcv's build output)
    "torch-detected-cuda-mismatch-unformatted": (
        "      RuntimeError: ('The detected CUDA version (%s) mismatches the version that was used to compilePyTorch (%s). Please make sure to use the same CUDA versions.', '11.3', '12.8')",
    ),
    # NVIDIA/nvidia-docker#1535 (issue description)
    "container-hook-crashed": (
        "docker: Error response from daemon: OCI runtime create failed: container_linux.go:380: starting container process caused: process_linux.go:545: container init caused: Running hook #0:: error running hook: signal: segmentation fault, stdout: , stderr:: unknown.",
    ),
    # roboflow/roboflow-100-benchmark#51 (YOLOv7's loss on Colab)
    "torch-tensors-on-different-devices": (
        "RuntimeError: indices should be either on cpu or on the same device as the indexed tensor (cpu)",
    ),
    # PaddlePaddle/PARL#179 (the error summary)
    "paddle-device-count-error": (
        "PaddleCheckError: cudaGetDeviceCount failed in paddle::platform::GetCUDADeviceCountImpl, error code : 30, Please see detail in https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__TYPES.html#group__CUDART__TYPES_1g3f51e3575c2178246db0a94a430e0038: unknown error at [/paddle/paddle/fluid/platform/gpu_info.cc:67]",
    ),
    # voicepaw/so-vits-svc-fork#330 (rich's wrapped warning)
    "torch-typed-storage-deprecated": (
        "                    TypedStorage is deprecated. It will be removed in the future and UntypedStorage will",
    ),
    # NVIDIA/cudf#8414 (conda's channel list; the host name replaced)
    "conda-32-bit-channels": ("  - https://package-index.invalid/rapidsai/linux-32",),
    # deepspeedai/DeepSpeedExamples#370 (the traceback's last source line)
    "deepspeed-cuda-mismatch-raised": (
        '    raise Exception(f">- DeepSpeed Op Builder: Installed CUDA version {sys_cuda_version} does not match the "',
    ),
    # run-llama/llama_index#13019 (issue description)
    "python-shutdown-import": (
        "ImportError: sys.meta_path is None, Python is likely shutting down",
    ),
    # PaddlePaddle/PaddleFormers#1166 (the traceback's last line)
    "paddle-not-compiled-with-cuda": ("AssertionError: Not compiled with CUDA",),
    # Theano/Theano#4508 (issue description)
    # src-d/kmcuda#13 (issue description)
    "kmcuda-compute-capability-mismatch": (
        "compute capability mismatch for device 0: wanted 6.1, have 3.7",
    ),
    # YueLiao/PPDM#27 (issue description)
    "cuda-register-fatbinary-end-undefined": (
        "ImportError: /home/<user>/PPDM/src/lib/models/networks/DCNv2/_ext/dcn_v2/_dcn_v2.so: undefined symbol: __cudaRegisterFatBinaryEnd",
    ),
    # piwheels/packages#230 (the quotes around the version lost in the issue's Markdown)
    "glibc-too-old": (
        "ImportError: /lib/arm-linux-gnueabihf/libm.so.6: version GLIBC_2.29 not found (required by /home/pi/.local/lib/python3.9/site-packages/numpy/core/_multiarray_umath.cpython-39-arm-linux-gnueabihf.so)",
    ),
    # cupy/cupy#2763 (the SyntaxError's place: no ", in FUNCTION" after the line number)
    "python-package-syntax-newer-than-interpreter": (
        '  File "/usr/local/lib/python2.7/dist-packages/cupyx/_ufunc_config.py", line 17',
    ),
    # ggml-org/llama.cpp#6184
    "ggml-cublas-no-devices": ("ggml_init_cublas: no CUDA devices found, CUDA will be disabled",),
    # Theano/libgpuarray#560
    "libgpuarray-cublas-not-initialized": (
        "ERROR 11: cublasCreate: (cublas) Library not initialized.",
        "GpuArrayException: ('cublasCreate: (cublas) Library not initialized.', 11)",
    ),
    # horovod/horovod#666, NVIDIA/nccl-tests#15, NVIDIA/nccl#1486
    "nccl-peer-closed-connection": (
        "seyun:17283:17549 [3] include/socket.h:371 WARN Connection closed by remote peer",
        "server1:6601:6625 [0] include/socket.h:385 NCCL WARN Net : Connection closed by remote peer",
        "gpu004:2200689:2200706 [3] misc/socket.cc:49 NCCL WARN socketProgress: Connection closed by remote peer gpu004.abc.com<55693>",
    ),
    # graphdeco-inria/gaussian-splatting#748, Mukosame/Zooming-Slow-Mo-CVPR-2020#48
    "torch-extension-no-cuda-runtime": (
        "No CUDA runtime is found, using CUDA_HOME='/usr/local/cuda'",
        "    No CUDA runtime is found, using CUDA_HOME='C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v11.8'",
    ),
    # numba/numba#3963
    "numba-driver-missing-cuinit": ("CudaDriverError: driver missing function: cuInit.",),
    "numba-driver-missing-function": (
        "numba.cuda.cudadrv.error.CudaDriverError: driver missing function: cuMemGetInfo_v2.",
    ),
    # Theano/libgpuarray#213, gempy-project/gempy#698, chainer/chainer#3398
    "theano-gpuarray-api-version": (
        "RuntimeError: ('Wrong major API version for gpuarray:', -9998, 'Make sure Theano and libgpuarray/pygpu are in sync.')",
    ),
    "theano-numpy-blas-notice": (
        "WARNING (theano.tensor.blas): Using NumPy C-API based implementation for BLAS functions.",
    ),
    "chainer-grad-type-check": (
        "ValueError: Function `<property object at 0x2b30178b8050>` (_ * _) has a bug.",
    ),
    # heterodb/pg-strom#241
    "pgstrom-gpu-not-supported": (
        "LOG:  GPU0 Quadro K4200 (7 SMs, 784MHz), L2 512KB, RAM 4033MB (256bits, 2700MHz), capability 3.0, NOT SUPPORTED",
        "FATAL:  No supported CUDA devices, PG-Strom was disabled",
    ),
    # sylabs/singularity#776
    "singularity-nv-no-driver-libraries": (
        "WARNING: Could not find any NVIDIA libraries on this host!",
        "INFO:    Could not find any NVIDIA binaries on this host!",
    ),
    # Lumi-supercomputer/LUMI-AI-Guide#3, pytorch/pytorch#114335
    "torchrun-notices": (
        "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed.",
        "master_addr is only used for static rdzv_backend and when rdzv_endpoint is not specified.",
    ),
    # microsoft/onnxruntime#980, cassiebreviu/StableDiffusion#31, opencv/opencv#24064
    "ort-windows-loadlibrary-not-found": (
        "  Message=[ErrorCode:NoSuchFile] kernel32.LoadLibrary():'cublas64_91.dll' not found. CUDA is required for GPU execution. . Verify it is available in the system directory=C:\\Windows\\system32. Else copy it to the output folder.",
        "[ErrorCode:NoSuchFile] kernel32.LoadLibrary():'cudnn64_7.dll' not found. CUDA is required for GPU execution.",
    ),
    "ort-input-element-type": (
        "Microsoft.ML.OnnxRuntime.OnnxRuntimeException:[ErrorCode:InvalidArgument] Tensor element data type discovered: Int64 metadata expected: Float",
    ),
    "opencv-dnn-cuda-layer-fallback": (
        '[ INFO:0@1.338] global op_cuda.cpp:80 cv::dnn::dnn4_v20230620::Net::Impl::initCUDABackend CUDA backend will fallback to the CPU implementation for the layer "onnx_node!Sub_421" of type NaryEltwise',
    ),
    # pytorch/pytorch#52662
    "torch-windows-cpu-wheel-download": (
        "  Downloading torch-1.7.1-cp38-cp38-win_amd64.whl (184.0 MB)",
    ),
    # intel/ipex-llm#10262, desResLab/LINFA#1
    "torch-harmless-userwarnings": (
        "C:\\ProgramData\\anaconda3\\envs\\env\\lib\\site-packages\\torchvision\\io\\image.py:13: UserWarning: Failed to load image Python extension: ''If you don't plan on using image functionality from `torchvision.io`, you can ignore this warning.",
        "/usr/lib/python3.8/site-packages/torch/functional.py:504: UserWarning: torch.meshgrid: in an upcoming release, it will be required to pass the indexing argument. (Triggered internally at ../aten/src/ATen/native/TensorShape.cpp:3483.)",
    ),
    # NVIDIA/open-gpu-kernel-modules#501, void-linux/void-packages#53759
    "dkms-nvidia-make-failed": (
        "make[2]: *** [scripts/Makefile.build:252: /var/lib/dkms/nvidia/530.41.03/build/nvidia-drm/nvidia-drm-drv.o] Error 1",
        "make[2]: *** [/usr/src/kernel-headers-6.12.7_1/Makefile:1937: /var/lib/dkms/nvidia/470.239.06/build] Chyba 2",
    ),
    # negativo17/nvidia-driver#73
    "nouveau-bound-to-gpu": ("[    5.436312] nouveau 0000:01:00.0: NVIDIA GM204 (124020a1)",),
    # jwyang/faster-rcnn.pytorch#465, yuweihao/KERN#17
    "cuda-launch-abi-newer-nvcc": (
        "ImportError: /home/KERN/lib/fpn/nms/_ext/nms/_nms.so: undefined symbol: __cudaPopCallConfiguration",
    ),
    # NVIDIA/nccl#258
    "cuda-gdb-api-error-notice": (
        "warning: Cuda API error detected: cudaDeviceEnablePeerAccess returned (0x2c0)",
    ),
    # ollama/ollama#4008
    "ollama-gpu-too-old-capability": (
        "CUDA GPU is too old. Compute Capability detected: 1.0",
        "CUDA GPU is too old. Compute Capability detected: 3.0",
    ),
    # mudler/LocalAI#4511 (no driver name quoted)
    "docker-no-gpu-device-driver": (
        'docker: Error response from daemon: could not select device driver "" with capabilities: [[gpu]].',
        "could not select device driver with capabilities: [[gpu]]",
    ),
    "torch-version-cuda-none": (
        # follows torch-version-cuda-query: the call, then what it printed (opendatalab/MinerU#240)
        ">>> print(torch.cuda.device_count())\n0\n>>> print(torch.version.cuda) \nNone",
    ),
    "gpu-list-query": (
        # the install check of tensorflow/docs pip.md, as run in tensorflow/tensorflow#64881
        "python3 -c \"import tensorflow as tf; print(tf.config.list_physical_devices('GPU'))\"",
        # a notebook traceback's source line, frankkramer-lab/MIScnn#32
        "      4 physical_devices = tf.config.list_physical_devices('GPU')",
    ),
    "tensorflow-lists-no-gpu": (
        # follows gpu-list-query: samples are the call, then what it printed. tensorflow/tensorflow
        # #60646 (TF 2.12): "Skipping registering GPU devices..." then "[]"
        "python3 -c \"import tensorflow as tf; print(tf.config.list_physical_devices('GPU'))\""
        "\nSkipping registering GPU devices...\n[]",
        # tensorflow/tensorflow#62375 (TF 2.14, native Windows 10)
        "print('GPU', tf.config.list_physical_devices('GPU'))\nGPU []",
    ),
    "tensorflow-counts-no-gpu": (
        # the print of TensorFlow's GPU guide: tensorflow/tensorflow#66750, frankkramer-lab/MIScnn#32
        "Num GPUs Available:  0",
        # tensorflow/tensorflow#38990
        "Num GPUs: 0",
    ),
    "gpu-ignored-compute-capability": (
        # §7 row 14; public log in tensorflow/tensorflow#17445
        "2018-03-05 13:43:54.533246: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1283] Ignoring visible gpu device (device: 0, name: Quadro K2000M, pci bus id: 0000:01:00.0, compute capability: 3.0) with Cuda compute capability 3.0. The minimum required Cuda capability is 3.5.",
        # TF 0.x wording, tensorflow/tensorflow#112
        "Ignoring gpu device (device: 0, name: GRID K520, pci bus id: 0000:00:03.0) with Cuda compute capability 3.0. The minimum required Cuda capability is 3.5.",
    ),
    "gpu-ignored-core-count": (
        # §7 row 32 template, device and counts filled in
        "Ignoring visible gpu device (device: 1, name: Quadro P400, pci bus id: 0000:02:00.0, compute capability: 6.1) with core count: 2. The minimum required count is 8. You can adjust this requirement with the env var TF_MIN_GPU_MULTIPROCESSOR_COUNT.",
    ),
    "no-kernel-binaries-for-capability": (
        # §7 row 15, "X.Y" = 12.0 (RTX 50 on TF 2.18-2.20)
        "TensorFlow was not built with CUDA kernel binaries compatible with compute capability 12.0. CUDA kernels will be jit-compiled from PTX, which could take 30 minutes or longer.",
    ),
    "no-kernel-image": (
        # §7 row 16
        "Status: device kernel image is invalid",
        "no kernel image is available for execution on the device",
    ),
    "invalid-ptx": (
        # §7 row 31 (tensorflow/tensorflow#90291)
        "'cuModuleLoadData(&module, data)' failed with 'CUDA_ERROR_INVALID_PTX'",
    ),
    "libdevice-not-found": (
        # §7 row 17
        "libdevice not found at ./libdevice.10.bc",
        "libdevice is required by this HLO module but was not found at ./libdevice.10.bc",
    ),
    "libdevice-directory-missing": (
        # §7 row 17
        "Can't find libdevice directory ${CUDA_DIR}/nvvm/libdevice. This may result in compilation or runtime failures, if the program we try to run uses routines from libdevice.",
    ),
    "ptxas-version-unknown": (
        # §7 row 18, TF <= 2.10 and 2.11+ wordings
        "Couldn't get ptxas version string: INTERNAL: Couldn't invoke ptxas --version",
        "Couldn't get ptxas version : FAILED_PRECONDITION: Couldn't get ptxas/nvlink version string: INTERNAL: Couldn't invoke ptxas --version",
    ),
    "ptxas-driver-fallback": (
        # §7 row 18
        "INTERNAL: Failed to launch ptxas",
        "Relying on driver to perform ptx compilation. Modify $PATH to customize ptxas location. This message will be only logged once.",
    ),
    "ptxas-too-old": (
        # §7 row 19, "<v>" = 10.2.89 (CUDA 10.2's ptxas)
        "*** WARNING *** You are using ptxas 10.2.89, which is older than 11.1. ptxas before 11.1 is known to miscompile XLA code, leading to incorrect results or invalid-address errors.",
    ),
    "cuda-out-of-memory": (
        # §7 row 23; public TF 1.x log
        "2018-03-14 13:07:11.053987: E tensorflow/stream_executor/cuda/cuda_driver.cc:936] failed to allocate 15.00G (16104454912 bytes) from device: CUDA_ERROR_OUT_OF_MEMORY",
        # TF 2.x form with the error text
        "2021-07-14 08:08:53.663124: I tensorflow/stream_executor/cuda/cuda_driver.cc:775] failed to allocate 256.00M (268435456 bytes) from device: CUDA_ERROR_OUT_OF_MEMORY: out of memory",
    ),
    "oom-allocating-tensor": (
        # public TF 1.x traceback
        "ResourceExhaustedError: OOM when allocating tensor with shape[200,75,75,64] and type float on /job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc",
        # tensorflow/tensorflow#136 (TensorFlow 0.5's form of the shape)
        "ResourceExhaustedError: OOM when allocating tensor with shapedim { size: 10000 } dim { size: 18 } dim { size: 18 } dim { size: 32 }",
    ),
    "allocator-out-of-memory": (
        # public TF 1.x log (bfc_allocator.cc)
        "2017-06-20 20:25:42.825757: W tensorflow/core/common_runtime/bfc_allocator.cc:273] Allocator (GPU_0_bfc) ran out of memory trying to allocate 286.00MiB.  Current allocation summary follows.",
    ),
    "allocator-out-of-memory-not-a-failure": (
        # public TF 2.x log (bfc_allocator.cc)
        "2021-11-05 09:30:48.424570: W tensorflow/core/common_runtime/bfc_allocator.cc:271] Allocator (GPU_0_bfc) ran out of memory trying to allocate 2.55GiB with freed_by_count=0. The caller indicates that this is not a failure, but may mean that there could be performance gains if more memory were available.",
    ),
    "tensorrt-not-found": (
        # §7 row 21 (py_utils.cc:38, TF 2.13-2.17)
        "W tensorflow/compiler/tf2tensorrt/utils/py_utils.cc:38] TF-TRT Warning: Could not find TensorRT",
        # keras-team/keras-io#1794 (the issue's title, quoted bare)
        "Could not find TensorRT",
    ),
    "tensorrt-dlopen-failed": (
        # §7 row 22 (with the "TF-TRT Warning: " prefix of ~2.11+)
        "TF-TRT Warning: Cannot dlopen some TensorRT libraries. If you would like to use Nvidia GPU with TensorRT, please make sure the missing libraries mentioned above are installed properly.",
    ),
    "numa-node-negative": (
        # public log in tensorflow/tensorflow#10656
        "2017-06-13 00:53:55.614764: I tensorflow/stream_executor/cuda/cuda_gpu_executor.cc:893] successful NUMA node read from SysFS had negative value (-1), but there must be at least one NUMA node, so returning NUMA node zero",
    ),
    "cpu-instructions-notice": (
        # tensorflow/tensorflow#7929 (TF 1.0's wording)
        "W tensorflow/core/platform/cpu_feature_guard.cc:45] The TensorFlow library wasn't compiled to use SSE4.1 instructions, but these are available on your machine and could speed up CPU computations.",
        # TF 2.21 no-GPU log, verbatim (two lines)
        "I0000 00:00:1796003927.626963    7803 cpu_feature_guard.cc:227] This TensorFlow binary is optimized to use available CPU instructions in performance-critical operations.",
        "To enable the following instructions: AVX2 FMA, in other operations, rebuild TensorFlow with the appropriate compiler flags.",
        # tensorflow/tensorflow#8853 (TF 1.1 on Windows; the line wrapped before "instruc-")
        "tions, but these are available on your machine and could speed up CPU computations.",
    ),
    "onednn-notice": (
        # public TF 2.9+ log
        "I tensorflow/core/util/port.cc:113] oneDNN custom operations are on. You may see slightly different numerical results due to floating-point round-off errors from different computation orders. To turn them off, set the environment variable `TF_ENABLE_ONEDNN_OPTS=0`.",
    ),
    "absl-log-before-init": (
        # TF 2.21 no-GPU log, verbatim
        "WARNING: All log messages before absl::InitializeLog() is called are written to STDERR",
    ),
    # --- mistakes in user code (usage-pitfall); tests/test_pitfalls.py checks them further ---
    "tf1-graph-mixup": (
        # pierluigiferrari/ssd_keras#283 (issue title); seed 000 quotes no English line
        'ValueError: Tensor("training/Adam/Const:0", shape=(), dtype=float32) must be from the same graph as Tensor("sub:0", shape=(), dtype=float32).',
        # autonomio/talos#125 (tf.keras model in a hyperparameter scan)
        "ValueError: Fetch argument <tf.Variable 'dense/kernel:0' shape=(4, 64) dtype=float32> cannot be interpreted as a Tensor. (Tensor Tensor(\"dense/kernel/Read/ReadVariableOp:0\", shape=(4, 64), dtype=float32) is not an element of this graph.)",
    ),
    "tf1-variable-already-exists": (
        # google-deepmind/neural-processes#4 (maintainer: reset the default graph)
        "ValueError: Variable layer_3/kernel already exists, disallowed. Did you mean to set reuse=True or reuse=tf.AUTO_REUSE in VarScope? Originally defined at:",
        # guillaume-chevalier/seq2seq-signal-prediction#10 (a re-run notebook cell)
        "ValueError: Variable Optimizer/Seq2seq/basic_rnn_seq2seq/rnn/multi_rnn_cell/cell_0/gru_cell/gates/kernel/RMSProp/ already exists, disallowed. Did you mean to set reuse=True or reuse=tf.AUTO_REUSE in VarScope? Originally defined at:",
    ),
    "grappler-function-type-mismatch": (
        # tianlinxu312/cot-gan#4 (seed 001 describes it but quotes no English line)
        "2021-10-13 18:40:24.989984: E tensorflow/core/grappler/optimizers/meta_optimizer.cc:561] function_optimizer failed: Invalid argument: Input 0 of node zeros_like_72 was passed float from sequential/lstm/StatefulPartitionedCall:9 incompatible with expected variant.",
        # tensorflow/tensorflow#51818 (TF 2.6, LSTM under two GradientTapes)
        "2021-09-03 12:39:22.300477: W tensorflow/core/common_runtime/process_function_library_runtime.cc:841] Ignoring multi-device function optimization failure: Invalid argument: Input 0 of node zeros_like_1 was passed float from sequential/lstm/PartitionedCall:6 incompatible with expected variant.",
        # tensorflow/tensorflow#41129 (TF 2.7 wording, as pasted from Colab's log viewer, double spaces kept)
        "2022-01-25  11:29:38.610777: E  tensorflow/core/grappler/optimizers/meta_optimizer.cc:812]  function_optimizer failed: INVALID_ARGUMENT: Input 0 of node  while/enter/_25 was passed bool from model_1/lstm_1/PartitionedCall:5  incompatible with expected int32.",
    ),
    "keras-weights-of-unknown-shape": (
        # the seed, tests/seeds/003_ffdd21011fc4f8ff.txt line 20 (a public blog post)
        "return int(fan_in), int(fan_out)",
    ),
    "savedmodel-checkpoint-warnings": (
        # tensorflow/tensorflow#54090 (TF 2.7, model.save of an LSTM model), two lines
        "WARNING:absl:Found untraced functions such as lstm_cell_layer_call_fn, lstm_cell_layer_call_and_return_conditional_losses, lstm_cell_layer_call_fn, lstm_cell_layer_call_and_return_conditional_losses, lstm_cell_layer_call_and_return_conditional_losses while saving (showing 5 of 5). These functions will not be directly callable after loading.",
        "WARNING:absl:<keras.layers.recurrent.LSTMCell object at 0x0000021419A6A820> has the same name 'LSTMCell' as a built-in Keras object. Consider renaming <class 'keras.layers.recurrent.LSTMCell'> to avoid naming conflicts when loading with `tf.keras.models.load_model`. If renaming is not possible, pass the object in the `custom_objects` parameter of the load function.",
    ),
    "fit-epoch-length-unknown": (
        # frankkramer-lab/aucmedi#190 (the public copy is cut after "f1_score: 0.2")
        "    634/Unknown - 519s 803ms/step - loss: 1.6051 - auc: 0.7237 - f1_score: 0.2",
    ),
    "fit-generator-steps-required": (
        # pierluigiferrari/ssd_keras#102 (Keras 2.1 fit_generator)
        "ValueError: `validation_steps=None` is only valid for a generator based on the `keras.utils.Sequence` class. Please specify `validation_steps` or use the `keras.utils.Sequence` class.",
        # keras-team/keras#10855 (evaluate_generator), and a comment's quote in the same thread
        "ValueError: `steps=None` is only valid for a generator based on the `keras.utils.Sequence` class. Please specify `steps` or use the `keras.utils.Sequence` class.",
        "ValueError: Must specify 'validation_steps' to perform validation when doing step-wise training.",
    ),
    "generator-not-thread-safe": (
        # divamgupta/image-segmentation-keras#42 (issue title, Keras' own wording)
        "RuntimeError: Your generator is NOT thread-safe.Keras requires a thread-safe generator when`use_multiprocessing=False, workers > 1`.For more information see issue #1638",
        # matterport/Mask_RCNN#495 (keras/utils/data_utils.py worker thread)
        "ValueError: generator already executing",
    ),
    "xla-ret-check-device-ordinal": (
        # the seed, tests/seeds/003_ffdd21011fc4f8ff.txt line 311 (the RET_CHECK's condition line)
        " 0 <= local_device_ordinal && local_device_ordinal < gpu_global_device_ids->size()",
        # jax-ml/jax#12119 (the same XLA check on one line)
        "jaxlib.xla_extension.XlaRuntimeError: INTERNAL: RET_CHECK failure (external/org_tensorflow/tensorflow/compiler/xla/service/gpu/gpu_executable_run_options.cc:75) 0 <= local_device_ordinal && local_device_ordinal < gpu_global_device_ids->size()",
    ),
    "heap-corruption-abort": (
        # the seed, tests/seeds/003_ffdd21011fc4f8ff.txt line 297 (Keras jit_compile=True)
        "corrupted double-linked list",
        # rbgirshick/py-faster-rcnn#443 (glibc's full form)
        "*** Error in `python': corrupted double-linked list: 0x00000000269f9640 ***",
    ),
    "nvcc-host-compiler-unsupported": (
        # ceccocats/tkDNN#134 (CUDA 10.x's host_config.h and gcc 9)
        "/usr/local/cuda/include/crt/host_config.h:138:2: error: #error -- unsupported GNU version! gcc versions later than 8 are not supported!",
        # ggml-org/llama.cpp#9205 (gcc 14; the newer wording with the override flag)
        "#error -- unsupported GNU version! gcc versions later than 13 are not supported! The nvcc flag '-allow-unsupported-compiler' can be used to override this version check; however, using an unsupported host compiler may cause compilation failure or incorrect run time execution. Use at your own risk.",
        # pytorch/vision#8492, davisking/dlib#1560 (MSVC prints "#error:" and blanks before "--")
        "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v12.1\\include\\crt/host_config.h(153): fatal error C1189: #error:  -- unsupported Microsoft Visual Studio version! Only the versions between 2017 and 2022 (inclusive) are supported! The nvcc flag '-allow-unsupported-compiler' can be used to override this version check; however, using an unsupported host compiler may cause compilation failure or incorrect run time execution. Use at your own risk.",
        "c:\\program files\\nvidia gpu computing toolkit\\cuda\\v9.0\\include\\crt/host_config.h(133): fatal error C1189: #error: -- unsupported Microsoft Visual Studio version! Only the versions 2012, 2013, 2015 and 2017 are supported!",
    ),
    "cuda-header-not-found": (
        # wang-xinyu/tensorrtx#2
        "project/resnet/resnext50_32x4d.cpp:2:10: fatal error: cuda_runtime_api.h: No such file or directory",
        # open-mmlab/mmdetection#71
        "/usr/include/stdc-predef.h:59:1: fatal error: cuda_runtime.h: No such file or directory  ",
        # vlfeat/matconvnet#1107 (full-width colons)
        "cc1plus: Fatal error： cuda_runtime.h：No such file or directory",  # noqa: RUF001
        # Yuliang-Liu/Box_Discretization_Network#41 (a Chinese locale)
        "/home/rebot/anaconda3/envs/cwt_DeepLearning/lib/python3.7/site-packages/torch/include/c10/cuda/CUDAStream.h:6:10: fatal error: cuda_runtime_api.h: 没有那个文件或目录",
    ),
    "nvcc-gpu-architecture-value-unknown": (
        # zju3dv/NeuralRecon#119 (CUDA 11.0's nvcc asked for sm_86)
        "nvcc fatal   : Value 'sm_86' is not defined for option 'gpu-architecture'",
        # HazyResearch/butterfly#23 (CUDA 11.2 asked for sm_30; the opening quote as pasted)
        "“nvcc fatal   : Value 'sm_30' is not defined for option 'gpu-architecture'",
    ),
    "nvcc-cl-exe-not-in-path": (
        # elda27/pydrr#6
        "nvcc fatal   : Cannot find compiler 'cl.exe' in PATH",
        # xmake-io/xmake#1391
        r"checkinfo: @programdir\core\sandbox\modules\os.lua:261: nvcc fatal   : Cannot find compiler 'cl.exe' in PATH",
    ),
    "nvidia-installer-nouveau-in-use": (
        # BenedictThompson-zz/Azure-Ethereum-mine#2 (the installer wraps its message)
        " ERROR: The Nouveau kernel driver is currently in use by your system.  This",
        # ApolloAuto/apollo#2466
        "ERROR: The Nouveau kernel driver is currently in use by your",
    ),
    "dkms-nvidia-module-build-failed": (
        # NVIDIA/open-gpu-kernel-modules#558 (390.157 on kernel 6.5)
        "Consult /var/lib/dkms/nvidia/390.157/build/make.log for more information.",
        # Bumblebee-Project/Bumblebee#811 (Debian's nvidia-current module, quoted)
        "> Consult /var/lib/dkms/nvidia-current/367.44/build/make.log for more information.",
    ),
    "nvrm-rm-init-adapter-failed": (
        # NVIDIA/open-gpu-kernel-modules#1230
        "[  101.209077] NVRM: GPU 0000:a1:00.0: RmInitAdapter failed! (0x62:0x40:2168)",
        # Bumblebee-Project/Bumblebee#722 (the older form without the bus address)
        "[87669.726564] NVRM: RmInitAdapter failed! (0x26:0xffff:1375)",
    ),
    "cdi-device-unresolvable": (
        # NixOS/nixpkgs#420638 (podman)
        "Error: setting up CDI devices: unresolvable CDI devices nvidia.com/gpu=all",
        # NVIDIA/nvidia-container-toolkit#1239 (containerd under Kubernetes)
        "  Warning  Failed     10s (x2 over 10s)  kubelet            Error: failed to create containerd task: failed to create shim task: OCI runtime create failed: could not apply required modification to OCI specification: error modifying OCI spec: failed to inject CDI devices: unresolvable CDI devices management.nvidia.com/gpu=GPU-e78e68c0-4e6a-737e-f9cc-4223fe50aead",
    ),
    "conda-nothing-provides-cuda": (
        # openmm/NNPOps#96 (mamba on a machine without a GPU)
        "  - nothing provides __cuda needed by pytorch-1.13.1-cuda112py310he33e0d6_200",
    ),
    "cupy-multiple-packages": (
        # rapidsai-community/rapidsai-csp-utils#138
        "  CuPy may not function correctly because multiple CuPy packages are installed",
        # gpustack/gpustack#5459 (vLLM's process prefix)
        "(APIServer pid=1)   CuPy may not function correctly because multiple CuPy packages are installed",
    ),
    "llama-cpp-no-gpu-offload-build": (
        # ggml-org/llama.cpp#9153
        "warning: not compiled with GPU offload support, --gpu-layers option will be ignored",
    ),
    "tensorrt-engine-other-gpu": (
        # NVIDIA/TensorRT#564 (TensorRT 7)
        "[TensorRT] ERROR: INVALID_CONFIG: The engine plan file is generated on an incompatible device, expecting compute 6.1 got compute 7.5, please rebuild.",
        # QwenAudio/CosyVoice#1600 (TensorRT 10's logger)
        "[10/10/2025-17:37:58] [TRT] [E] 6: The engine plan file is generated on an incompatible device, expecting compute 9.0 got compute 8.9, please rebuild.",
        # microsoft/onnxruntime#15250 (ONNX Runtime's TensorRT provider, a full stop for the comma)
        "The engine plan file is generated on an incompatible device. expecting compute 7.5 got compute 6.1. please rebuild.",
    ),
    "nvidia-smi-nvml-library-not-found": (
        # NVIDIA/nvidia-docker#1163
        "NVIDIA-SMI couldn't find libnvidia-ml.so library in your system. Please make sure that the NVIDIA Display Driver is properly installed and present in your system.",
    ),
    "k8s-device-plugin-nvml-not-loaded": (
        # NVIDIA/k8s-device-plugin#444 (containerd's log prefix)
        "2023-10-19T11:11:54.957723331+08:00 stderr F 2023/10/19 03:11:54 Failed to initialize NVML: could not load NVML library.",
        # NVIDIA/k8s-device-plugin#23 (the plugin's early wording)
        "Failed to start nvml with error:  could not load NVML library",
    ),
    "torch-vc-redist-missing": (
        # pytorch/pytorch#126507
        "Microsoft Visual C++ Redistributable is not installed, this may lead to the DLL load failure.",
    ),
    "ort-cuda-path-set-not-loaded": (
        # microsoft/onnxruntime#21049 (the message's own spelling)
        r"EP Error C:\a\_work\1\s\onnxruntime\python\onnxruntime_pybind_state.cc:866 onnxruntime::python::CreateExecutionProviderInstance CUDA_PATH is set but CUDA wasnt able to be loaded. Please install the correct version of CUDA andcuDNN as mentioned in the GPU requirements page  (https://onnxruntime.ai/docs/execution-providers/CUDA-ExecutionProvider.html#requirements),  make sure they're in the PATH, and that your GPU is supported.",
        # neuralchen/SimSwap#98 (an older release's wording)
        "CUDA_PATH is set but CUDA wasn't able to be loaded. Please install the correct version of CUDA and cuDNN as mentioned in the GPU requirements page, make sure they're in the PATH, and that your GPU is supported.",
    ),
    "container-cli-driver-file-exists": (
        # knaw-huc/loghi#3, NVIDIA/nvidia-docker#1551 (an image holding libnvidia-ml.so.1)
        "nvidia-container-cli: mount error: file creation failed: /var/lib/docker/overlay2/4f79/merged/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1: file exists: unknown.",
        # NVIDIA/nvidia-docker#825 (the hook's message as the issue shows it, broken across lines)
        r"ount error: file creation failed: /var/lib/docker/overlay2/bd4f3570d4eb99d9df1117bd3751a00c8c0eb63429e65eba2a196c6c543cc52f/merged/usr/bin/nvidia-smi: file exists\\\\\\\\n\\\\\\\"\\\"\": unknown",
        # NVIDIA/nvidia-container-toolkit#176 (WSL)
        "docker: Error response from daemon: OCI runtime create failed: container_linux.go:380: starting container process caused: process_linux.go:545: container init caused: Running hook #0:: error running hook: exit status 1, stdout: , stderr: nvidia-container-cli: mount error: file creation failed: /var/lib/docker/overlay2/ce57966999d99e98af2113a1f5c99f40792737c48903d5ba9f6ed5365aee8275/merged/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1: file exists: unknown.",
    ),
    "slurm-gres-invalid": (
        # awslabs/awsome-distributed-ai#196
        "sbatch: error: Invalid generic resource (gres) specification",
        # mehta-lab/waveorder#201
        "srun: error: Unable to create step for job 16413634: Invalid generic resource (gres) specification",
    ),
    "k8s-insufficient-nvidia-gpu": (
        # NVIDIA/k8s-device-plugin#36
        "[map[type:PodScheduled lastProbeTime:<nil> lastTransitionTime:2018-02-26T21:58:32Z message:0/2 nodes are available: 1 PodToleratesNodeTaints, 2 Insufficient nvidia.com/gpu. reason:Unschedulable status:False]]",
        # NVIDIA/k8s-device-plugin#165 (the scheduler's lower-case wording)
        "0/3 nodes are available: 3 insufficient nvidia.com/gpu.",
    ),
    "nvml-insufficient-permissions": (
        # NVIDIA/nvidia-docker#676
        "Failed to initialize NVML: Insufficient Permissions",
        # NVIDIA/nvidia-docker#1523
        "docker: Error response from daemon: OCI runtime create failed: container_linux.go:367: starting container process caused: process_linux.go:495: container init caused: Running hook #0:: error running hook: exit status 1, stdout: , stderr: nvidia-container-cli: initialization error: nvml error: insufficient permissions: unknown.",
    ),
    "nvidia-installer-no-kernel-source": (
        # Bumblebee-Project/Bumblebee#925
        "ERROR: Unable to find the kernel source tree for the currently running kernel.  Please make sure you have installed the",
    ),
    "nvidia-installer-module-already-loaded": (
        # Arc-Compute/LibVF.IO#20
        "ERROR: An NVIDIA kernel module 'nvidia-drm' appears to already be loaded in your kernel.  This may be because it is in use (for example, by an X server, a CUDA program, or the NVIDIA Persistence Daemon), but this may also happen if your >",
        # NVIDIA/cuda-samples#286 (the newer installer's warning)
        "WARNING: An NVIDIA kernel module 'nvidia-drm' appears to be already loaded in your kernel.  This may be because it is in use (for example, by an X server, a CUDA program, or the NVIDIA Persistence Daemon), but this may also happen if your kernel was configured without support for module unloading.  Some of the sanity checks that nvidia-installer performs to detect potential installation problems are not possible while an NVIDIA kernel module is running.",
    ),
    "nvrtc-cannot-open-cuda-header": (
        # cupy/cupy#5202
        'cupy.cuda.compiler.CompileException: /tmp/tmpiatufk20/d1a46dada092a1d26c70ca560727a5db_2.cubin.cu(56): catastrophic error: cannot open source file "cuda_runtime.h"',
    ),
    "bitsandbytes-without-gpu-support": (
        # bitsandbytes-foundation/bitsandbytes#176
        "/root/anaconda3/lib/python3.9/site-packages/bitsandbytes/cextension.py:31: UserWarning: The installed version of bitsandbytes was compiled without GPU support. 8-bit optimizers and GPU quantization are unavailable.",
        # nvidia-cosmos/cosmos-predict1#35
        "[WARNING | bitsandbytes.cextension]: The installed version of bitsandbytes was compiled without GPU support. 8-bit optimizers, 8-bit multiplication, and GPU quantization are unavailable.",
    ),
    "deepspeed-cuda-home-missing": (
        # thinhlpg/vixtts-demo#12
        "deepspeed.ops.op_builder.builder.MissingCUDAException: CUDA_HOME does not exist, unable to compile CUDA op(s)",
        # CCmahua/ChatTTS-Enhanced#3 (pip building deepspeed)
        "      op_builder.builder.MissingCUDAException: CUDA_HOME does not exist, unable to compile CUDA op(s)",
    ),
    "detectron2-not-compiled-with-gpu": (
        # facebookresearch/detectron2#267
        "RuntimeError: Not compiled with GPU support (ROIAlign_forward at /home/hd/detectron2_repo/detectron2/layers/csrc/ROIAlign/ROIAlign.h:73)",
        # clw5180/remote_sensing_object_detection_2019#14 (maskrcnn-benchmark)
        "RuntimeError: Not compiled with GPU support (RROIAlign_forward at /home/chen/remote_sensing_object_detection_2019/maskrcnn_benchmark/csrc/RROIAlign.h:20)",
    ),
    "tf-devices-modified-after-init": (
        # hunglc007/tensorflow-yolov4-tflite#171
        "RuntimeError: Physical devices cannot be modified after being initialized",
        # huggingface/transformers#1507
        "RuntimeError: Virtual devices cannot be modified after being initialized",
    ),
    "tf-memory-growth-differs": (
        # zzh8829/yolov3-tf2#225
        " ValueError: Memory growth cannot differ between GPU devices",
    ),
    "torch-loss-batch-size-mismatch": (
        # gauthierdmn/question_generation#4
        "ValueError: Expected input batch_size (1216) to match target batch_size (1280)",
        # xinge008/Cylinder3D#128
        "ValueError: Expected input batch_size (4) to match target batch_size (1).",
    ),
    # Learned from the held-out sets 3 and 6 after their final scores (issue 22); the lines are
    # from those sets' logs (their threads named in the sets' cases.toml) unless named otherwise.
    # NVIDIA/warp#672 (issue description), NVIDIA/cuda-python under WSL (a traceback)
    "libcuda-not-opened": (
        "Warp CUDA error: Could not open libcuda.so.",
        "   The minimum required CUDA driver version is 12.0, but the installed CUDA driver version is 0.0.",
        "RuntimeError: Failed to dlopen libcuda.so",
    ),
    # trexminer/T-Rex#95 (issue description)
    "driver-api-symbol-missing": (
        "/home/rik/Downloads/trex/t-rex: symbol lookup error: /home/rik/Downloads/trex/t-rex: undefined symbol: cuDevicePrimaryCtxSetFlags_v2",
        # ollama/ollama#5493 (its debug log)
        'time=2024-07-04T17:13:20.135+08:00 level=DEBUG source=gpu.go:385 msg="Unable to load nvcuda" library=/usr/lib64/libcuda.so.418.74 error="symbol lookup for cuCtxCreate_v3 failed: /usr/lib64/libcuda.so.418.74: undefined symbol: cuCtxCreate_v3"',
    ),
    # determined-ai/determined#3610 (issue description)
    "exit-code-sigill": (
        "[2022-02-11T11:05:43Z] 3628403e || INFO: container failed with non-zero exit code: container failed with non-zero exit code: 132 (exit code 132)",
    ),
    # GyanD/codexffmpeg#181, googlecolab/colabtools#3187 (issue descriptions)
    "nvenc-driver-too-old": (
        "Driver does not support the required nvenc API version. Required: 13.0 Found: 12.2",
        " [hevc_nvenc @ 0x55defbb87c00] Driver does not support the required nvenc API version. Required: 11.1 Found: 11.0",
        " [hevc_nvenc @ 0x55defbb87c00] The minimum required Nvidia driver for nvenc is 470.57.02 or newer",
    ),
    # vllm-project/vllm#25596 (pull request description)
    "cublas-no-current-context": (
        "/home/sage/git/nm-vllm/.venv/lib/python3.12/site-packages/torch/cuda/__init__.py:1166: UserWarning: Attempting to run cuBLAS, but there was no current CUDA context! Attempting to set the primary context... (Triggered internally at /pytorch/aten/src/ATen/cuda/CublasHandlePool.cpp:179.)",
    ),
    # tensorflow/tensorflow#23874 (issue description)
    "ptxas-reported-older-by-mistake": (
        "*** WARNING *** You are using ptxas 10.0.145, which is older than 9.2.88",
    ),
    # AIM-Harvard/pyradiomics (conda UnsatisfiableError, issue description: the two lines)
    "conda-python-incompatible": (
        "to be incompatible with the existing python installation in your environment:",
        "Your python: python=3.7",
    ),
    # docker/for-win (WSL 2 GPU preview, issue description)
    "container-cli-driver-error": (
        "docker: Error response from daemon: OCI runtime create failed: container_linux.go:370: starting container process caused: process_linux.go:459: container init caused: Running hook #0:: error running hook: exit status 1, stdout: , stderr: nvidia-container-cli: initialization error: driver error: failed to process request: unknown.",
    ),
    # ma-gilles/recovar#64 (the warning, joined at the thread's line break), jax-ml/jax#22416
    "jax-plugin-jaxlib-mismatch": (
        "RuntimeWarning: JAX plugin jax_cuda12_plugin version 0.9.2 is installed, but it is not compatible with the installed jaxlib version 0.9.0.1",
    ),
    "jax-pjrt-api-mismatch": (
        "RuntimeError: Unable to initialize backend 'cuda': INVALID_ARGUMENT: Mismatched PJRT plugin PJRT API version (0.54) and framework PJRT API version 0.51). (you may need to uninstall the failing plugin package, or set JAX_PLATFORMS=cpu to skip this backend.)",
    ),
    # fonnesbeck's report to JAX (issue description, joined at its line breaks), gladiaio/gladia
    # (issue description)
    "jax-no-cuda-platform-registered": (
        "[RuntimeError: Backend 'gpu' failed to initialize: NOT_FOUND: Could not find registered platform with name: \"cuda\". Available platform names are: Host Interpreter]()",
        "2022-11-30 12:50:08,211 - jax._src.lib.xla_bridge - WARNING - No GPU/TPU found, falling back to CPU. (Set TF_CPP_MIN_LOG_LEVEL=0 and rerun for more info.)",
    ),
    # google-deepmind/mujoco_playground (issue description)
    # and jax-ml/jax#20519 (issue description)
    "jax-plugin-library-not-loadable": (
        "RuntimeError: Unable to load cuSPARSE. Is it installed?",
        "CUDA backend failed to initialize: Unable to load cuDNN. Is it installed? (Set TF_CPP_MIN_LOG_LEVEL=0 and rerun for more info.)",
    ),
    # vincentarelbundock/marginaleffects#1587 (issue description)
    "jax-immutable-array-assignment": (
        "TypeError: JAX arrays are immutable and do not support in-place item assignment. Instead of x[idx] = y, use x = x.at[idx].set(y) or another .at[] method: https://docs.jax.dev/en/latest/_autosummary/jax.numpy.ndarray.at.html",
    ),
    # motokimura/spacenet_building_detection#3 (issue description)
    "cupy-out-of-memory": (
        "Exception in main training loop: out of memory to allocate 163840000 bytes (total 1673061376 bytes)",
    ),
    # cupy/cupy#2623 (issue description)
    "cupy-numpy-array-given": ("TypeError: Unsupported type <type 'numpy.ndarray'>",),
    # OpenNMT/CTranslate2 (a GPT-J generator on a T4, issue description)
    "ct2-float16-not-efficient-here": (
        "[ctranslate2] [thread 144] [warning] The compute type inferred from the saved model is float16, but the target device or backend do not support efficient float16 computation. The model weights have been automatically converted to use the float32 compute type instead.",
    ),
    # PaddlePaddle/Paddle#69102 (issue description)
    "paddle-third-party-library-not-configured": (
        "PreconditionNotMetError: The third-party dynamic library (cublas64_118.dll;cublas64_11.dll) that Paddle depends on is not configured correctly. (error code is 126)",
        # PaddlePaddle/PaddleClas#326 (Paddle before 2.0 names the library's kind)
        "TensorRT dynamic library (libnvinfer.so) that Paddle depends on is not configured correctly. (error code is libnvinfer.so: cannot open shared object file: No such file or directory)",
    ),
    # CuPy in LiberTEM on a Kepler GPU (a traceback), eyalroz/cuda-api-wrappers#509
    "nvrtc-invalid-option": (
        "NVRTCError: NVRTC_ERROR_INVALID_OPTION (5)",
        "Failed invoking compiler for CUDA C++ program at 0x07fae240a1c80: NVRTC_ERROR_INVALID_OPTION",
    ),
    # NVIDIA/TensorRT#2105 (issue description)
    "tensorrt-engine-serialization-version": (
        "[06/29/2022-16:20:45] [TRT] [E] 1: [stdArchiveReader.cpp::StdArchiveReader::35] Error Code 1: Serialization (Serialization assertion safeVersionRead == safeSerializationVersion failed.Version tag does not match. Note: Current Version: 0, Serialized Engine Version: 43)",
        # seanavery/yolov5-tensorrt#7 (TensorRT 7 loading an engine of TensorRT 6)
        "[TensorRT] ERROR: coreReadArchive.cpp (38) - Serialization Error in verifyHeader: 0 (Version tag does not match)",
    ),
    # Learned from the seventh held-out set, read after its end score; each comment names the thread
    # Parallel-in-Time/pySDC#272 (issue description), MouseLand/pykilosort#67 (issue description)
    "cupy-implicit-numpy-conversion": (
        "TypeError: Implicit conversion to a NumPy array is not allowed. Please use `.get()` to construct a NumPy array explicitly.",
    ),
    # jax-ml/jax#10231 (jnp.unique under a trace)
    "jax-tracer-conversion": (
        "NonConcreteBooleanIndexError: Array boolean indices must be concrete; got ShapedArray(bool[4897])",
    ),
    # pzelasko/daseg#11, huggingface/transformers#16205 (issue descriptions)
    "torch-embedding-index-out-of-range": ("IndexError: index out of range in self",),
    # chelsea0x3b/cudarc#255 (WSL), chelsea0x3b/cudarc#246, chelsea0x3b/cudarc#274
    "cudarc-library-not-found": (
        'Unable to find cuda lib under the names ["cuda", "nvcuda"]. Please open GitHub issue.',
        'Unable to find nvrtc lib under the names ["nvrtc", "nvrtc64", "nvrtc64_12", "nvrtc64_125", "nvrtc64_125_0", "nvrtc64_120_5", "nvrtc64_10"]. Please open GitHub issue.',
        'Unable to dynamically load the "cublas" shared library - searched for library names: ["cublas", "cublas64", "cublas64_12", "cublas64_125", "cublas64_125_0", "cublas64_120_5", "cublas64_10", "cublas64_120_0", "cublas64_9"]. Ensure that `LD_LIBRARY_PATH` has the correct path to the installed library. If the shared library is present on the system under a different name than one of those listed above, please open a GitHub issue.',
    ),
    # pytorch/pytorch#6336 (issue description)
    "caffe2-import-notice": (
        "WARNING:root:This caffe2 python run does not have GPU support. Will run in CPU only mode.",
        "WARNING:root:Debug message: libnccl.so.2: cannot open shared object file: No such file or directory",
    ),
    # Mined from public threads (PyTorch ecosystem, JAX, ONNX Runtime, CTranslate2, PaddlePaddle,
    # vLLM, llama.cpp, xFormers, DeepSpeed, TensorRT, bitsandbytes); each comment names the thread
    # pytorch/pytorch#122494 (issue description, pytest output), RaymondJiangkw/COGS#24 (issue description)
    "torchvision-operator-does-not-exist": (
        "E   RuntimeError: operator torchvision::nms does not exist",
        "RuntimeError: operator torchvision::nms does not exist",
    ),
    # ultralytics/yolov5#11149 (issue description), microsoft/scene_graph_benchmark#60 (issue description)
    "torchvision-custom-ops-not-loaded": (
        "RuntimeError: Couldn't load custom C++ ops. This can happen if your PyTorch and torchvision versions are incompatible, or if you had errors while compiling torchvision from source. For further information on the compatible versions, check https://github.com/pytorch/vision#installation for the compatibility matrix. Please check your PyTorch version with torch.__version__ and your torchvision version with torchvision.__version__ and verify if they are compatible, and if not please reinstall torchvision so that it matches your PyTorch install.",
        "Couldn't load custom C++ ops. This can happen if your PyTorch and torchvision versions are incompatible, or if you had errors while compiling torchvision from source. For further information on the compatible versions, check https://github.com/pytorch/vision#installation for the compatibility matrix. Please check your PyTorch version with torch.__version__ and your torchvision version with torchvision.__version__ and verify if they are compatible, and if not please reinstall torchvision so that it matches your PyTorch install.` \\",
    ),
    # yoraish/mmd#3 (issue description), biochunan/esmfold-docker-image#3 (issue description)
    "torch-mkl-ijit-symbol-missing": (
        "ImportError: /home/ltl/anaconda3/envs/mmd/lib/python3.8/site-packages/torch/lib/libtorch_cpu.so: undefined symbol: iJIT_NotifyEvent",
        "ImportError: /home/vscode/.conda/envs/py39-esmfold/lib/python3.9/site-packages/torch/lib/libtorch_cpu.so: undefined symbol: iJIT_NotifyEvent",
    ),
    # rwth-i6/returnn#1802 (issue description), NVIDIA/nccl#1180 (issue description)
    "torch-nccl-symbol-missing": (
        "ImportError: /home/runner/.local/lib/python3.10/site-packages/torch/lib/libtorch_cuda.so: undefined symbol: ncclMemFree",
        "torch/lib/libtorch_cuda.so: undefined symbol: ncclCommRegister",
    ),
    # google-deepmind/alphafold#25 (issue description), google-research/multinerf#12 (issue description)
    "jax-optional-backend-skipped": (
        "I0718 14:02:57.777399 139711506118464 run_docker.py:180] I0718 14:02:57.776700 139800994285376 xla_bridge.py:231] Unable to initialize backend 'tpu': Invalid argument: TpuPlatform is not available.",
        "I0808 20:59:00.963761 139857030612800 xla_bridge.py:328] Unable to initialize backend 'rocm': NOT_FOUND: Could not find registered platform with name: \"rocm\". Available platform names are: CUDA Host Interpreter",
    ),
    # stepfun-ai/Step-Audio#127 (issue description), microsoft/onnxruntime#16931 (issue description, Error / output)
    "ort-cuda-provider-not-created": (
        "2025-03-03 08:53:07.873206078 [W:onnxruntime:Default, onnxruntime_pybind_state.cc:861 CreateExecutionProviderInstance] Failed to create CUDAExecutionProvider. Please reference https://onnxruntime.ai/docs/execution-providers/CUDA-ExecutionProvider.html#requirementsto ensure all dependencies are met.",
        "2023-07-31 14:22:06.483132863 [W:onnxruntime:Default, onnxruntime_pybind_state.cc:640 CreateExecutionProviderInstance] Failed to create CUDAExecutionProvider. Please reference https://onnxruntime.ai/docs/execution-providers/CUDA-ExecutionProvider.html#requirements to ensure all dependencies are met.",
    ),
    # notAI-tech/NudeNet#156 (issue description), microsoft/onnxruntime#20559 (issue description)
    "ort-model-ir-version-too-new": (
        "onnxruntime.capi.onnxruntime_pybind11_state.Fail: [ONNXRuntimeError] : 1 : FAIL : Load model from ./640m.onnx failed:C:\\a\\_work\\1\\s\\onnxruntime\\core\\graph\\model.cc:150 onnxruntime::Model::Model Unsupported model IR version: 10, max supported IR version: 9",
        "onnxruntime.capi.onnxruntime_pybind11_state.Fail: [ONNXRuntimeError] : 1 : FAIL : Load model from positional_encoding_poly.onnx failed:/onnxruntime_src/onnxruntime/core/graph/model.cc:179 onnxruntime::Model::Model(onnx::ModelProto&&, const onnxruntime::PathString&, const onnxruntime::IOnnxRuntimeOpSchemaRegistryList*, const onnxruntime::logging::Logger&, const onnxruntime::ModelOptions&) Unsupported model IR version: 10, max supported IR version: 9",
    ),
    # Purfview/whisper-standalone-win#50 (issue description, quoting discussion #49)
    "ct2-cuda-out-of-memory": ("RuntimeError: CUDA failed with error out of memory",),
    # PaddlePaddle/Paddle#23487 (issue description), PaddlePaddle/Paddle#55715 (comment by BaoyuLi12138, 2023-08-31)
    "paddle-gpu-device-notice": (
        "W0404 16:40:48.365986 14840 device_context.cc:237] Please NOTE: device: 0, CUDA Capability: 61, Driver API Version: 10.1, Runtime API Version: 10.0",
        "W0831 17:08:58.996562 1851646 gpu_resources.cc:119] Please NOTE: device: 0, GPU Compute Capability: 6.1, Driver API Version: 11.7, Runtime API Version: 11.7",
    ),
    # PaddlePaddle/PaddleDetection#8873 (issue description), PaddlePaddle/Paddle#54713 (comment by HeedoKang, 2024-09-09)
    "paddle-gpu-arch-not-in-build": (
        " The GPU architecture in your current machine is Pascal, which is not compatible with Paddle installation with arch: 70 75 80 86 , it is recommended to install the corresponding wheel package according to the installation information on the official Paddle website.",
        "W0909 09:52:47.539053   455 gpu_resources.cc:96] The GPU architecture in your current machine is Pascal, which is not compatible with Paddle installation with arch: 61 70 75 80 86 , it is recommended to install the corresponding wheel package according to the installation information on the official Paddle website.",
        # PaddlePaddle/Paddle#75016 (Paddle 3.x, an RTX 5070 Ti)
        "E0901 21:40:14.737040 47228 gpu_resources.cc:98] Mismatched GPU Architecture: The "
        "installed PaddlePaddle package was compiled for 61 75 80 86 ,but your current GPU is 120 "
        "Solution: Install the correct wheel package built for your GPU",
    ),
    # PaddlePaddle/PARL#929 (issue description), PaddlePaddle/Paddle#50873 (issue description)
    "paddle-cpu-build-gpu-requested": (
        "E0714 16:34:40.972663 31948 pybind.cc:1277] Cannot use GPU because you have installed CPU version PaddlePaddle.",
        "E0224 15:37:10.817626 18616 place.cc:359] Cannot use GPU because you have installed CPU version PaddlePaddle.",
    ),
    # vllm-project/vllm#10439 (issue description), BatsResearch/bonito#22 (issue description)
    "vllm-no-memory-for-cache-blocks": (
        "vllm-1  | ERROR 11-18 18:07:28 engine.py:366] ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing the engine.",
        "ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing the engine.",
    ),
    # vllm-project/vllm#1488 (issue description), vllm-project/vllm#25022 (issue description)
    "vllm-quantization-gpu-too-old": (
        "The quantization method awq is not supported for the current GPU. Minimum capability: 75. Current capability: 70.",
        "RuntimeError: ('Quantization scheme is not supported for ', 'the current GPU. Min capability: 80. ', 'Current capability: 75.')",
    ),
    # ollama/ollama#6860 (issue description), abetlen/llama-cpp-python#1944 (issue description)
    "ggml-cuda-malloc-out-of-memory": (
        "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 144.00 MiB on device 4: cudaMalloc failed: out of memory",
        "   ggml_backend_cuda_buffer_type_alloc_buffer: allocating 204800.00 MiB on device 0: cudaMalloc failed: out of memory",
    ),
    # vllm-project/vllm#424 is a screenshot; derrian-distro/LoRA_Easy_Training_Scripts#287 (issue
    # description), Akegarasu/lora-scripts#107 (issue description), rsxdalv/TTS-WebUI#180 (issue description)
    "xformers-triton-not-available": (
        "WARNING  A matching Triton is not available, some optimizations will not be enabled   __init__.py:61",
        "A matching Triton is not available, some optimizations will not be enabled.",
        "> 2023-09-19 10:54:01 | WARNING | xformers | Triton is not available, some optimizations will not be enabled.",
    ),
    # deepspeedai/DeepSpeed#1541 (issue description), deepspeedai/DeepSpeed#1126 (comment by sgugger, 2021-06-02)
    "deepspeed-async-io-libaio-missing": (
        " [WARNING]  async_io requires the dev libaio .so object and headers but these were not found.",
        " [WARNING]  async_io requires the libraries: ['libaio-dev'] but are missing. Can be fixed by: `apt install libaio-dev`.",
    ),
    # cyrusbehr/YOLOv8-TensorRT-CPP#33 (issue description), NVIDIA/TensorRT#2468 (issue description)
    "tensorrt-lazy-loading-not-enabled": (
        'CUDA lazy loading is not enabled. Enabling it can significantly reduce device memory usage and speed up TensorRT initialization. See "Lazy Loading" section of CUDA documentation https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#lazy-loading',
        "    [TRT] [W] CUDA lazy loading is not enabled. Enabling it can significantly reduce device memory usage. See `CUDA_MODULE_LOADING` in https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#env-vars",
    ),
    # wang-xinyu/tensorrtx#1031 (issue description), zhiqwang/yolort#421 (issue description),
    # open-mmlab/mmdeploy#914 (issue description)
    "tensorrt-linked-against-other-version": (
        "[07/01/2022-17:03:23] [W] [TRT] TensorRT was linked against cuDNN 8.1.0 but loaded cuDNN 8.0.5",
        "[06/13/2022-09:44:48] [TRT] [W] TensorRT was linked against cuBLAS/cuBLASLt 11.6.3 but loaded cuBLAS/cuBLASLt 11.5.1",
        "[08/18/2022-02:11:58] [W] [TRT] TensorRT was linked against cuBLAS/cuBLAS LT 11.6.1 but loaded cuBLAS/cuBLAS LT 11.4.2",
    ),
    # bitsandbytes-foundation/bitsandbytes#1522 (issue description), bitsandbytes-foundation/bitsandbytes#492 (issue description)
    "bitsandbytes-cuda-setup-failed": (
        "        CUDA Setup failed despite GPU being available. Inspect the CUDA SETUP outputs above to fix your environment!",
        "        CUDA Setup failed despite GPU being available. Please run the following ",
    ),
    # NixOS/nixos-hardware#1828 (issue description, journal lines), siderolabs/talos#8764 (issue
    # description, kernel log)
    "driver-nvrm-legacy-gpu": (
        "                              NVRM:  supported through the NVIDIA 580.xx Legacy drivers. Please",
        " NVRM:  supported through the NVIDIA 470.xx Legacy drivers. Please",
    ),
    # staralt/dxgkrnl-dkms#7 (issue description), microsoft/WSL#9938 (issue description)
    "wsl-nvml-gpu-access-blocked": (
        "Failed to initialize NVML: GPU access blocked by the operating system",
        "Failed to properly shut down NVML: GPU access blocked by the operating system",
    ),
    # NVIDIA/nvidia-docker#1486 (issue description), NVIDIA/nvidia-docker#1447 (issue description)
    "container-cli-cgroup-devices-missing": (
        "docker: Error response from daemon: OCI runtime create failed: container_linux.go:367: starting container process caused: process_linux.go:495: container init caused: Running hook #1:: error running hook: exit status 1, stdout: , stderr: nvidia-container-cli: container error: cgroup subsystem devices not found: unknown.",
        "docker: Error response from daemon: OCI runtime create failed: container_linux.go:370: starting container process caused: process_linux.go:459: container init caused: Running hook #0:: error running hook: exit status 1, stdout: , stderr: nvidia-container-cli: container error: cgroup subsystem devices not found: unknown.",
    ),
    # NVIDIA/k8s-device-plugin#406 (issue description, plugin pod log), NVIDIA/k8s-device-plugin#1220
    # (issue description)
    "container-k8s-plugin-incompatible-platform": (
        "E0524 08:28:03.908121       1 factory.go:115] Incompatible platform detected",
        "E0402 22:17:31.198643       1 factory.go:112] Incompatible strategy detected auto",
        "E0524 08:28:03.908130       1 factory.go:116] If this is a GPU node, did you configure the NVIDIA Container Toolkit?",
    ),
    # wookayin/gpustat#110 (issue description, Markdown bold dropped), damomine/aleominer#14 (issue
    # description; the Rust nvml-wrapper's wording)
    "driver-nvml-not-loaded": (
        "pynvml.NVMLError_DriverNotLoaded: Driver Not Loaded",
        "thread 'main' panicked at 'Failed to initialize nvml: DriverNotLoaded', src/environment/mod.rs:37:31",
    ),
    # rapidsai/jupyterlab-nvdashboard#31 (comment by jacobtomlinson), NVlabs/imaginaire#56 (issue
    # description)
    "driver-nvml-library-not-found": (
        "pynvml.nvml.NVMLError_LibraryNotFound: NVML Shared Library Not Found",
    ),
    # Peterande/D-FINE#289 (issue description), horovod/horovod#3949 (issue description)
    "nccl-duplicate-gpu": (
        "Duplicate GPU detected : rank 0 and rank 1 both on CUDA device 2000",
        "[1,0]<stdout>:chifflot-7:67917:67949 [0] init.cc:748 NCCL WARN Duplicate GPU detected : rank 0 and rank 1 both on CUDA device 3b000",
    ),
    # NVIDIA/nccl#259 (issue description), NVIDIA/nccl#1231 (issue description), NVIDIA/nccl-tests#166
    # (a comment's log, NCCL 2.18 wording)
    "nccl-net-plugin-absent": (
        "h0913n-ubuntu:12877:12877 [0] NCCL INFO NET/Plugin : No plugin found (libnccl-net.so).",
        "VM-0-14-tencentos:162637:162637 [6] NCCL INFO NET/Plugin : dlerror=libnccl-net.so: cannot open shared object file: No such file or directory No plugin found (libnccl-net.so), using internal implementation",
        "ubuntu:9621:9621 [0] NCCL INFO NET/Plugin : Plugin load (libnccl-net.so) returned 2 : libnccl-net.so: cannot open shared object file: No such file or directory",
    ),
    # openai/gym#1900 (issue description), NVIDIA/cudf#5830 (issue description)
    "conda-cuda-feature-listed": (
        "  - feature:/win-64::__cuda==11.0=0",
        "Your installed CUDA driver is: 11.0",
    ),
    # jaakkopasanen/AutoEq#249 (issue description, legacy resolver), isofit/isofit#174 (issue
    # description)
    "pip-requirement-conflict": (
        "ERROR: tensorflow 2.4.0 has requirement numpy~=1.19.2, but you'll have numpy 1.17.5 which is incompatible.",
        "tensorflow 2.3.1 requires numpy<1.19.0,>=1.16.0, but you'll have numpy 1.19.1 which is incompatible.",
    ),
    # dionhaefner/pyhpc-benchmarks#17 (issue description), neuronets/nobrainer#252 (the pull
    # request's build log)
    "pip-tensorflow-gpu-removed": (
        '      The "tensorflow-gpu" package has been removed!',
        '    70.48   The "tensorflow-gpu" package has been removed!',
    ),
    # tensorflow/tensorflow#61993 (issue description, pip's output)
    "pip-tf-and-cuda-extra-missing": (
        "WARNING: tensorflow 2.13.1 does not provide the extra 'and-cuda'",
    ),
    # tensorflow/tensorflow#35423 (comment by netw0rkf10w), tensorflow/models#9847 (issue description)
    "tf-xla-ptxas-not-found": (
        "2019-12-30 12:52:15.338250: W tensorflow/core/framework/op_kernel.cc:1655] OP_REQUIRES failed at xla_compile_on_demand_op.cc:220 : Not found: ./bin/ptxas not found",
        "  (0) Not found: ./bin/ptxas not found",
    ),
    # Jhsmit/PyHDX#95 (issue description), dattalab/keypoint-moseq#78 (issue description; the
    # cause is not established there)
    "tf-blas-without-blas-support": (
        "2020-08-05 14:50:28.489701: W tensorflow/stream_executor/stream.cc:2041] attempting to perform BLAS operation using StreamExecutor without BLAS support",
        "XlaRuntimeError: INTERNAL: Attempting to perform BLAS operation using StreamExecutor without BLAS support",
    ),
    # tensorflow/tensorflow#62963 (issue description, the line it quotes),
    # tnybny/Frame-level-anomalies-in-videos#15 (issue description; the maintainer's answer in #6)
    "tf-local-rendezvous-end-of-sequence": (
        "W tensorflow/core/framework/local_rendezvous.cc:404] Local rendezvous is aborting with status: OUT_OF_RANGE: End of sequence",
        "2020-08-19 20:29:03.074610: W tensorflow/core/framework/op_kernel.cc:1192] Out of range: End of sequence",
    ),
    # tensorflow/tensorflow#52672 (comment by rfrush), microsoft/tensorflow-directml#403 (issue
    # description)
    "mps-tf-numa-node-unidentified": (
        "2021-11-22 08:20:43.007615: I tensorflow/core/common_runtime/pluggable_device/pluggable_device_factory.cc:305] Could not identify NUMA node of platform GPU ID 0, defaulting to 0. Your kernel may not have been built with NUMA support.",
        "2023-02-21 15:59:02.375236: I tensorflow/core/common_runtime/pluggable_device/pluggable_device_factory.cc:306] Could not identify NUMA node of platform GPU ID 0, defaulting to 0. Your kernel may not have been built with NUMA support.",
        # tensorflow/tensorflow#5986 (TensorFlow 0.12 on Windows, at error level)
        "E c:\\tf_jenkins\\home\\workspace\\release-win\\device\\gpu\\os\\windows\\tensorflow\\core\\common_runtime\\gpu\\gpu_device.cc:586] Could not identify NUMA node of /job:localhost/replica:0/task:0/gpu:0, defaulting to 0.  Your kernel may not have been built with NUMA support.",
    ),
    # microsoft/WSL#10277 (a comment's log), microsoft/WSL#6014 (issue description)
    "tf-numa-node-file-unreadable": (
        "2024-11-17 15:28:51.443940: I tensorflow/stream_executor/cuda/cuda_gpu_executor.cc:923] could not open file to read NUMA node: /sys/bus/pci/devices/0000:01:00.0/numa_node",
        "2020-10-01 14:18:55.610151: E tensorflow/stream_executor/cuda/cuda_gpu_executor.cc:967] could not open file to read NUMA node: /sys/bus/pci/devices/0000:1d:00.0/numa_node",
        "Your kernel may have been built without NUMA support.",
    ),
    # pkoutoupis/rapiddisk#60 (issue description), NVIDIA/k8s-device-plugin#480 (the dmesg lines of
    # the issue description)
    "driver-module-taints-kernel": (
        "[    9.914160] kernel: rapiddisk: module verification failed: signature and/or required key missing - tainting kernel",
        "[    2.846803] nvidia: module verification failed: signature and/or required key missing - tainting kernel",
        "[    2.829492] nvidia: loading out-of-tree module taints kernel.",
    ),
    # Mined from public threads, round five (the stack); each comment names the thread
    # negativo17/nvidia-driver#158, issue description (journal lines); NVIDIA/open-gpu-kernel-modules#696, comment by ajvengo, 2024-08-26 (dmesg)
    "nvrm-open-module-gpu-without-gsp": (
        "             NVRM: installed in this system is not supported by open",
        "NVRM: installed in this system is not supported by open",
    ),
    # tensorflow/tensorflow#5473, issue description; src-d/coreos-nvidia#3, issue description
    "nvidia-module-unknown-symbol": (
        "modprobe: ERROR: could not insert 'nvidia_367_uvm': Unknown symbol in module, or unknown parameter (see dmesg)",
        "insmod: ERROR: could not insert module /opt/nvidia/lib/modules/4.14.16/video/nvidia.ko: Unknown symbol in module",
    ),
    # NVIDIA/nvidia-docker#614, issue description; hekmak/Conf-net#5, issue description (same message; the thread has no answer)
    "container-cli-ldconfig-missing": (
        'docker: Error response from daemon: OCI runtime create failed: container_linux.go:296: starting container process caused "process_linux.go:398: container init caused \\"process_linux.go:381: running prestart hook 1 caused \\\\\\"error running hook: exit status 1, stdout: , stderr: exec command: [/usr/bin/nvidia-container-cli --load-kmods configure --ldconfig=@/sbin/ldconfig.real --device=all --compute --utility --require=cuda>=8.0 --pid=25807 /var/lib/docker/overlay2/8127e7486398ec495fc98de2cee1f18e769ee97f43211ccbc455a058d3b3923a/merged]\\\\\\\\nnvidia-container-cli: ldcache error: open failed: /sbin/ldconfig.real: no such file or directory\\\\\\\\n\\\\\\"\\"": unknown.',
        "docker: Error response from daemon: OCI runtime create failed: container_linux.go:380: starting container process caused: process_linux.go:545: container init caused: Running hook #1:: error running hook: exit status 1, stdout: , stderr: nvidia-container-cli: ldcache error: open failed: /sbin/ldconfig.real: no such file or directory: unknown.",
    ),
    # NVIDIA/nvidia-container-toolkit#29, issue description
    "container-cli-unknown-device": (
        "nvidia-container-cli: device error: false: unknown device: unknown.",
    ),
    # state-spaces/mamba#123, issue description (start of the error output); pytorch/pytorch#103417, comment by alexcpn (traceback excerpt)
    "linker-cannot-find-libcuda": (
        "/usr/bin/ld: cannot find -lcuda",
        "/usr/bin/ld: cannot find -lcuda: No such file or directory",
    ),
    # JPaulMora/Pyrit#124, issue description
    "cuda-launch-timeout": ("SystemError: CUDA_ERROR_LAUNCH_TIMEOUT",),
    # nagadit/DeepFaceLab_Linux#89, issue description
    "cuda-ecc-uncorrectable": (
        "F tensorflow/stream_executor/lib/statusor.cc:34] Attempting to fetch value instead of handling error Internal: failed initializing StreamExecutor for CUDA device ordinal 0: Internal: failed call to cuDevicePrimaryCtxRetain: CUDA_ERROR_ECC_UNCORRECTABLE: uncorrectable ECC error encountered",
    ),
    # haoheliu/AudioLDM#49, issue description; pytorch/pytorch#88038, comment by Selimonder, 2023-04-01
    "cufft-internal-error": (
        "RuntimeError: cuFFT error: CUFFT_INTERNAL_ERROR",
        "RuntimeError: cuFFT error: CUFFT_INTERNAL_ERROR",
    ),
    # OpenNMT/CTranslate2#1849, issue description; m-bain/whisperX#1038, issue description
    "loader-executable-stack-refused": (
        "ImportError: libctranslate2-bc15bf3f.so.4.5.0: cannot enable executable stack as shared object requires: Invalid argument",
        "ImportError: libctranslate2-d3638643.so.4.4.0: cannot enable executable stack as shared object requires: Invalid argument",
    ),
    # Mined from public threads (mine5b, framework area); each comment names the thread(s) and where
    # daydreamlive/scope#84 (issue description), ROCm/ROCm-docker#127 (PR description)
    "python-dev-headers-missing": (
        "2025-10-30T21:54:45.622419515Z /tmp/tmpbe9ryx74/cuda_utils.c:5:10: fatal error: Python.h: No such file or directory",
        "[2024-04-11T19:39:33.162Z] /tmp/tmpdebje0fu/main.c:4:10: fatal error: Python.h: No such file or directory",
    ),
    # tloen/alpaca-lora#80 (issue description), haoheliu/AudioLDM2#39 (issue description)
    "torch-compile-windows-unsupported": (
        "RuntimeError: Windows not yet supported for torch.compile",
        '    raise RuntimeError("Windows not yet supported for torch.compile")',
    ),
    # 3dem/model-angelo#104 (issue description)
    "torch-cudnn-nvrtc-workaround": (
        "~/anaconda3/envs/model-angelo_local/lib/python3.10/site-packages/torch/nn/modules/conv.py:605: UserWarning: Applied workaround for CuDNN issue, install nvrtc.so (Triggered internally at /opt/conda/conda-bld/pytorch_1711403388920/work/aten/src/ATen/native/cudnn/Conv_v8.cpp:80.)",
    ),
    # pytorch/pytorch#121834 (comment by L1pp, 2024-05-08), Nerogar/OneTrainer#336 (issue description)
    "torch-cudnn-plan-failed-notice": (
        "/opt/conda/lib/python3.10/site-packages/torch/autograd/graph.py:744: UserWarning: Plan failed with a cudnnException: CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR: cudnnFinalize Descriptor Failed cudnn_status: CUDNN_STATUS_NOT_SUPPORTED (Triggered internally at /opt/conda/conda-bld/pytorch_1712608935911/work/aten/src/ATen/native/cudnn/Conv_v8.cpp:919.)",
        "gits/OneTrainer/venv/lib/python3.10/site-packages/torch/autograd/graph.py:744: UserWarning: Plan failed with a cudnnException: CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR: cudnnFinalize Descriptor Failed cudnn_status: CUDNN_STATUS_NOT_SUPPORTED (Triggered internally at ../aten/src/ATen/native/cudnn/Conv_v8.cpp:919.)",
    ),
    # SCIInstitute/ShapeWorks#1556 (issue description)
    "torch-dataloader-too-many-open-files": (
        "RuntimeError: Too many open files. Communication with the workers is no longer possible. Please increase the limit using `ulimit -n` in the shell or change the sharing strategy by calling `torch.multiprocessing.set_sharing_strategy('file_system')` at the beginning of your code",
    ),
    # Suanmd/TR-MISR#3 (issue description), bghira/SimpleTuner#59 (issue description)
    "torch-stack-unequal-size": (
        "RuntimeError: stack expects each tensor to be equal size, but got [24, 32, 64] at entry 0 and [24, 64, 32] at entry 1",
        "RuntimeError: stack expects each tensor to be equal size, but got [4, 128, 170] at entry 0 and [4, 96, 128] at entry 2",
    ),
    # zhuangdizhu/FedGen#1 (issue description)
    "torch-numpy-on-tensor-requiring-grad": (
        "RuntimeError: Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.",
    ),
    # Animadversio/GAN-Geometry#4 (issue description), WisconsinAIVision/MaskPoint#7 (issue description)
    "torch-grad-implicit-scalar": (
        "RuntimeError: grad can be implicitly created only for scalar outputs",
        '    raise RuntimeError("grad can be implicitly created only for scalar outputs")',
    ),
    # RAIVNLab/STR#4 (issue description)
    "torch-view-not-contiguous": (
        "RuntimeError: view size is not compatible with input tensor's size and stride (at least one dimension spans across two contiguous subspaces). Use .reshape(...) instead.",
    ),
    # tensorflow/tensorflow#68488 (PR description), tensorflow/tensorflow#61324 (comment by YanSte, 2023-08-11)
    "tf-layout-optimizer-scalar-notice": (
        "E tensorflow/core/grappler/optimizers/meta_optimizer.cc:961] layout failed: INVALID_ARGUMENT: Size of values 0 does not match size of permutation 4 @ fanin shape inStatefulPartitionedCall/sequential_2_1/dropout_1/stateless_dropout/SelectV2-2-TransposeNHWCToNCHW-LayoutOptimizer",
        "2023-08-09 13:10:29.937931: E tensorflow/core/grappler/optimizers/meta_optimizer.cc:954] layout failed: INVALID_ARGUMENT: Size of values 0 does not match size of permutation 4 @ fanin shape insequential_2/dropout/dropout/SelectV2-2-TransposeNHWCToNCHW-LayoutOptimizer",
    ),
    # fastmachinelearning/hls4ml#359 (issue description), tensorflow/tensorflow#38561 (comment by gurushantj, 2020-04-15; the TF 2.1 wording)
    "tf-function-retracing": (
        "WARNING:tensorflow:11 out of the last 11 calls to <function Model.make_predict_function.<locals>.predict_function at 0x7fe08a0295e0> triggered tf.function retracing. Tracing is expensive and the excessive number of tracings could be due to (1) creating @tf.function repeatedly in a loop, (2) passing tensors with different shapes, (3) passing Python objects instead of tensors. For (1), please define your @tf.function outside of the loop. For (2), @tf.function has experimental_relax_shapes=True option that relaxes argument shapes that can avoid unnecessary retracing. For (3), please refer to https://www.tensorflow.org/guide/function#controlling_retracing and https://www.tensorflow.org/api_docs/python/tf/function for  more details.",
        "WARNING:tensorflow:5 out of the last 5 calls to <function _make_execution_function.<locals>.distributed_function at 0x134d83290> triggered tf.function retracing. Tracing is expensive and the excessive number of tracings is likely due to passing python objects instead of tensors. Also, tf.function has experimental_relax_shapes=True option that relaxes argument shapes that can avoid unnecessary retracing. Please refer to https://www.tensorflow.org/tutorials/customization/performance#python_or_tensor_args and https://www.tensorflow.org/api_docs/python/tf/function for more details.",
    ),
    # apple/tensorflow_macos#267 (issue description), JiahuiYu/generative_inpainting#536 (issue description)
    "tf-symbolic-tensor-to-numpy": (
        "NotImplementedError: Cannot convert a symbolic Tensor (random_rotation_1/rotation_matrix/strided_slice:0) to a numpy array. This error may indicate that you're trying to pass a Tensor to a NumPy call, which is not supported",
        "NotImplementedError: Cannot convert a symbolic Tensor (gradients_5/inpaint_net_3/ExtractImagePatches_grad/mul_3:0) to a numpy array.",
    ),
    # tensorflow/tensorflow#34658 (issue description)
    "tf1-api-on-tf2": ("AttributeError: module 'tensorflow' has no attribute 'Session'",),
    # microsoft/onnxruntime#16597 (the lines quoted in the comment by baijumeswani, 2023-07-19), k2-fsa/sherpa-onnx#163 (issue description)
    "ort-nodes-assigned-to-cpu-notice": (
        "2023-07-19 11:40:43.079052029 [W:onnxruntime:, session_state.cc:1162 VerifyEachNodeIsAssignedToAnEp] Some nodes were not assigned to the preferred execution providers which may or may not have an negative impact on performance. e.g. ORT explicitly assigns shape related ops to CPU to improve perf.",
        "2023-05-25 00:21:23.008326867 [W:onnxruntime:, session_state.cc:1138 VerifyEachNodeIsAssignedToAnEp] Rerunning with verbose output on a non-minimal build will show node assignments.",
    ),
    # onnx/tensorflow-onnx#883 (issue description), neuralchen/SimSwap#173 (issue description)
    "tensorrt-int64-weights-cast-notice": (
        "[W] [TRT] onnx2trt_utils.cpp:198: Your ONNX model has been generated with INT64 weights, while TensorRT does not natively support INT64. Attempting to cast down to INT32.",
        "[W:onnxruntime:Default, tensorrt_execution_provider.h:53 onnxruntime::TensorrtLogger::log] [2021-12-08 16:53:27 WARNING] D:\\a\\_work\\1\\s\\cmake\\external\\onnx-tensorrt\\onnx2trt_utils.cpp:364: Your ONNX model has been generated with INT64 weights, while TensorRT does not natively support INT64. Attempting to cast down to INT32.",
    ),
    # PaddlePaddle/Paddle#33540 (issue description), PaddlePaddle/Paddle#28360 (issue description; Paddle 2.0.0rc0 and its install check)
    "paddle-gpu-build-no-cuda-device": (
        "/usr/local/python3.5.1/lib/python3.5/site-packages/paddle/fluid/framework.py:298: UserWarning: You are using GPU version Paddle, but your CUDA device is not set properly. CPU device will be used by default.",
        "WARNING:root:You are using GPU version Paddle Fluid, But Your CUDA Device is not set properly",
    ),
    # bitsandbytes-foundation/bitsandbytes#711 (issue description), oobabooga/textgen#2397 (issue description)
    "bitsandbytes-cpu-library-loaded": (
        "function 'cadam32bit_grad_fp32' not found",
        "'NoneType' object has no attribute 'cadam32bit_grad_fp32'",
    ),
    # Mined from public threads, round six (installing and platforms); each comment names the thread
    # jeromerony/adversarial-library#5, issue description; scylladb/python-driver#482, issue description
    "pip-requires-different-python": (
        "ERROR: Package 'adv-lib' requires a different Python: 3.6.8 not in '>=3.8'",
        "ERROR: Package 'ccm' requires a different Python: 3.8.18 not in '>=3.9'",
    ),
    # vllm-project/llm-compressor#95, issue description; protorikis/rikis#1, issue description
    "pip-ignored-versions-require-python": (
        "ERROR: Ignored the following versions that require a different python version: 0.1.0 Requires-Python <3.12,>=3.8.0",
        "ERROR: Ignored the following versions that require a different python version: 0.0.1 Requires-Python >=3.13; 0.0.2 Requires-Python >=3.12; 0.0.3 Requires-Python >=3.12; 0.0.4 Requires-Python >=3.12",
    ),
    # TCDSolar/stixpy#208, issue description; strictdoc-project/strictdoc#1118, issue description
    "pip-windows-long-path": (
        "HINT: This error might have occurred since this system does not have Windows Long Path support enabled. You can find information on how to enable this at https://pip.pypa.io/warnings/enable-long-paths.",
        "HINT: This error might have occurred since this system does not have Windows Long Path support enabled. You can find information on how to enable this at https://pip.pypa.io/warnings/enable-long-paths",
    ),
    # pypa/pip#11857, issue description; pypa/pip#9906, issue description (Output)
    "pip-leftover-invalid-distribution": (
        "WARNING: Ignoring invalid distribution -orch (c:\\users\\asus\\appdata\\roaming\\python\\python310\\site-packages)",
        "WARNING: Ignoring invalid distribution -ip (d:\\python 3.8\\lib\\site-packages)",
    ),
    # AirtestProject/AirtestIDE#1119, issue description; cocodataset/cocoapi#561, issue description (one line of the ImportError as the reporter wrapped it)
    "macos-library-wrong-architecture": (
        "ImportError: dlopen(/Library/Python/3.8/site-packages/cv2/cv2.abi3.so, 0x0002): tried: '/Library/Python/3.8/site-packages/cv2/cv2.abi3.so' (mach-o file, but is an incompatible architecture (have 'arm64', need 'x86_64')), '/usr/local/lib/cv2.abi3.so' (no such file), '/usr/lib/cv2.abi3.so' (no such file)",
        "(mach-o file, but is an incompatible architecture (have 'x86_64', need 'arm64e')), ",
    ),
    # nodejs/node#10081, issue description; alpinelinux/docker-alpine#322, issue description
    "musl-glibc-symbol-not-found": (
        "Error: Error relocating /root/.npm/@corbinu/couchbase/2.2.4/package/build/Release/couchbase_impl.node: __strncpy_chk: symbol not found",
        "Error relocating /opt/tools/run_tools: malloc_info: symbol not found",
    ),
    # Netflix/metaflow#2068, pull request description (example output); conda/conda-libmamba-solver#368, issue description
    "conda-glibc-virtual-package-missing": (
        "    nothing provides __glibc >=2.17,<3.0.a0 needed by pyside6-6.7.2-py310heb5a38e_0",
        "  - nothing provides __glibc >=2.17 needed by libgcc-ng-11.2.0-h1234567_0",
    ),
    # ROCm/pytorch#984, issue description; pytorch/pytorch#144203, issue description (Versions)
    "rocm-amdgpu-ids-missing": (
        "/opt/amdgpu/share/libdrm/amdgpu.ids: No such file or directory",
        "amdgpu.ids: No such file or directory",
    ),
    # mkiol/dsnote#107, issue description; ROCm/rocBLAS#1300, issue description
    "rocblas-tensile-library-unreadable": (
        "rocBLAS error: Cannot read /app/extensions/amd/rocm/lib/rocblas/library/TensileLibrary.dat: No such file or directory",
        "rocBLAS error: Cannot read /opt/rocm/rocblas/lib/rocblas/library/TensileLibrary.dat: No such file or directory",
    ),
    # ROCm/rocALUTION#197, issue description; etched-ai/open-oasis#27, issue description (same message, no answer there)
    "hip-invalid-device-function": (
        "HIP error: invalid device function",
        "RuntimeError: HIP error: invalid device function",
    ),
    # Nerogar/OneTrainer#138, issue description; pytorch/pytorch#170511, issue description
    "pip-torch-local-version-not-found": (
        "ERROR: Could not find a version that satisfies the requirement torch==2.1.2+cu118 (from versions: 1.11.0, 1.12.0, 1.12.1, 1.13.0, 1.13.1, 2.0.0, 2.0.1, 2.1.0, 2.1.1, 2.1.2)",
        "ERROR: No matching distribution found for torch==2.3.1+cu121",
    ),
    # lucidrains/self-rewarding-lm-pytorch#15, issue description; YaoYinYing/RFdiffusion#5, issue description (traceback's last line)
    "torch-mps-placeholder-storage": (
        "RuntimeError: Placeholder storage has not been allocated on MPS device!",
        "RuntimeError: Placeholder storage has not been allocated on MPS device!",
    ),
    # Lux-AI-Challenge/Lux-Design-S3#21, issue description; jax-ml/jax#31723, issue description
    "jaxlib-cpu-lacks-avx": (
        "This version of jaxlib was built using AVX instructions, which your CPU and/or operating system do not support. This error is frequently encountered on macOS when running an x86 Python installation on ARM hardware. In this case, try installing an ARM build of Python. Otherwise, you may be able work around this issue by building jaxlib from source.",
        "RuntimeError: This version of jaxlib was built using AVX instructions, which your CPU and/or operating system do not support. You may be able work around this issue by building jaxlib from source.",
    ),
    # PaddlePaddle/Paddle#43067, issue description; PaddlePaddle/Paddle#55939, comment by MooTong123, 2023-09-25
    "paddle-avx-build-without-avx": (
        "Error: Your machine doesn't support AVX, but the installed PaddlePaddle is avx core, you should reinstall paddlepaddle with no-avx core.",
        " Your machine doesn't support AVX, but the installed paddlepaddle is avx core, you should reinstall paddlepaddle with no-avx core.",
    ),
    # Mined from public threads, round six (running on the GPU); each comment names the thread
    # marqo-ai/marqo#101 (issue description); deepakn97/relationPrediction#37 (issue description, last traceback line)
    "torch-cudnn-no-valid-algorithm": (
        "RuntimeError: Unable to find a valid cuDNN algorithm to run convolution",
        "RuntimeError: Unable to find a valid cuDNN algorithm to run convolution (try_all at /opt/conda/conda-bld/pytorch_1591914868920/work/aten/src/ATen/native/cudnn/Conv.cpp:693)",
    ),
    # tensorflow/tensorflow#36781 (issue description); tensorflow/tensorflow#9105 (issue description, quoted traceback); JianpingLin/M-LVC_CVPR2020#12 (issue description)
    "tf-blas-launch-failed": (
        "InternalError:  Blas GEMM launch failed : a.shape=(32, 116032), b.shape=(116032, 256), m=32, n=256, k=116032",
        "> tensorflow.python.framework.errors_impl.InternalError: Blas SGEMM launch failed : a.shape=(10000, 784), b.shape=(784, 500), m=10000, n=500, k=784",
        "InternalError (see above for traceback): Blas xGEMMBatched launch failed : a.shape=[5,2,3], b.shape=[5,3,810000], m=2, n=810000, k=3, batch_size=5",
    ),
    # pytorch/pytorch#15541 (issue description); Juyong/CaricatureFace#2 (issue description, last traceback line)
    "torch-load-missing-cuda-device": (
        " RuntimeError: Attempting to deserialize object on CUDA device 3 but torch.cuda.device_count() is 2. Please use torch.load with map_location to map your storages to an existing device.",
        "RuntimeError: Attempting to deserialize object on CUDA device 1 but torch.cuda.device_count() is 1. Please use torch.load with map_location to map your storages to an existing device.",
    ),
    # xlang-ai/UnifiedSKG#12 (issue description, traceback); OFA-Sys/OFA#304 (issue description)
    "torch-nccl-process-group-no-gpus": (
        "RuntimeError: ProcessGroupNCCL is only supported with GPUs, no GPUs found!",
    ),
    # VCIP-RGBD/DFormer#2 (issue description, quoted); facebookresearch/detectron2#3972 (issue description, traceback)
    "torch-default-process-group-missing": (
        ">RuntimeError: Default process group has not been initialized, please make sure to call init_process_group.",
        "RuntimeError: Default process group has not been initialized, please make sure to call init_process_group.",
    ),
    # huggingface/accelerate#663 (issue description); huggingface/transformers#20438 (second post, launcher output)
    "deepspeed-cuda-visible-devices-ignored": (
        "Detected CUDA_VISIBLE_DEVICES=2,4,5,7 but ignoring it because one or several of --include/--exclude/--num_gpus/--num_nodes cl args were used. If you want to use CUDA_VISIBLE_DEVICES don't pass any of these arguments to deepspeed.",
        "    Detected CUDA_VISIBLE_DEVICES=GPU-460af155,GPU-457e4df4,GPU-08f1eba5,GPU-4793f3fd,GPU-cbc5b6ef,GPU-aa661638,GPU-a39d482a,GPU-dc0ceb93 but ignoring it because one or several of --include/--exclude/--num_gpus/--num_nodes cl args were used. If you want to use CUDA_VISIBLE_DEVICES don't pass any of these arguments to deepspeed.",
    ),
    # microsoft/onnxruntime#16307 (issue description, "To reproduce"); hacksider/Deep-Live-Cam#547 (issue description); triton-inference-server/onnxruntime_backend#249 (issue description)
    "ort-bfc-arena-allocation-failed": (
        "`Non-zero status code returned while running ReduceSum node. onnxruntime::BFCArena::AllocateRawInternal Failed to allocate memory for requested buffer of size 939524096` ",
        "2024-09-05 15:15:49.9522079 [E:onnxruntime:, sequential_executor.cc:514 onnxruntime::ExecuteKernel] Non-zero status code returned while running FusedConv node. Name:'Conv_3' Status Message: D:\\a\\_work\\1\\s\\onnxruntime\\core\\framework\\bfc_arena.cc:376 onnxruntime::BFCArena::AllocateRawInternal Failed to allocate memory for requested buffer of size 643840",
        "/onnxruntime_src/onnxruntime/core/framework/bfc_arena.cc:368 void* onnxruntime::BFCArena::AllocateRawInternal(size_t, bool, onnxruntime::Stream*, bool, onnxruntime::WaitNotificationFn) Failed to allocate memory for requested buffer of size 15728896",
    ),
    # microsoft/onnxruntime#10770 (issue title); NVIDIA/TensorRT#4254 (issue description); NVIDIA/TensorRT#948 (issue title)
    "tensorrt-allocator-out-of-memory": (
        "E:onnxruntime:Default, tensorrt_execution_provider.h:50 log] [2022-03-04 13:39:28 ERROR] ../rtSafe/safeRuntime.cpp (25) - Cuda Error in allocate: 2 (out of memory)",
        "[E] [defaultAllocator.cpp::allocate::31] Error Code 1: Cuda Runtime (out of memory)",
        "[E] [TRT] C:\\source\\rtSafe\\safeRuntime.cpp (25) - Cuda Error in nvinfer1::internal::DefaultAllocator::allocate: 2 (out of memory)",
    ),
    # NVIDIA/TensorRT-LLM#493 (issue description); ultralytics/ultralytics#14751 (issue description); VoltaML/voltaML-fast-stable-diffusion#15 (issue description); NVIDIA-AI-IOT/torch2trt#706 (issue description)
    "tensorrt-tactic-skipped-memory-notice": (
        "`[11/28/2023-15:47:38] [TRT] [W] UNSUPPORTED_STATESkipping tactic 4 due to insufficient memory on requested size of 66048 detected for tactic 0x000000000000001f.`",
        "[07/28/2024-14:47:29] [TRT] [W] Tactic Device request: 538MB Available: 166MB. Device memory is insufficient to use tactic.",
        "[07/28/2024-14:47:31] [TRT] [W] Skipping tactic 3 due to insuficient memory on requested size of 538 detected for tactic 4.",
        "[12/09/2022-20:25:24] [TRT] [W] Requested amount of GPU memory (17179869184 bytes) could not be allocated. There may not be enough free memory for allocation to succeed.",
        "[TensorRT] ERROR: Tactic Device request: 2304MB Available: 1536MB. Device memory is insufficient to use tactic.",
    ),
    # vllm-project/vllm#20305 (issue description, log); vllm-project/vllm#25837 (issue description, log)
    "vllm-startup-free-memory-below-utilization": (
        "[multiproc_executor.py:492] ValueError: Free memory on device (31.44/47.38 GiB) on startup is less than desired GPU memory utilization (0.95, 45.01 GiB). Decrease GPU memory utilization or reduce GPU memory used by other processes.",
        "(EngineCore_DP0 pid=17374) ERROR 09-28 15:47:24 [core.py:718] ValueError: Free memory on device (3.22/4.0 GiB) on startup is less than desired GPU memory utilization (0.9, 3.6 GiB). Decrease GPU memory utilization or reduce GPU memory used by other processes.",
    ),
    # tensorflow/tensorflow#73487 (issue description; and a later comment by t-kalinowski)
    "xla-gpu-timer-delay-kernel-notice": (
        "W0000 00:00:1723232766.166398 1705064 gpu_timer.cc:114] Skipping the delay kernel, measurement accuracy will be reduced",
        "2025-02-10 16:44:23.346297: E external/xla/xla/stream_executor/cuda/cuda_timer.cc:86] Delay kernel timed out: measured time has sub-optimal accuracy. There may be a missing warmup execution, please investigate in Nsight Systems.",
    ),
    # Learned from the eighth held-out set, read after its end score; each comment names the thread
    # NVIDIA/open-gpu-kernel-modules#526, NVIDIA/open-gpu-kernel-modules#635 (DKMS output)
    "dkms-module-build-failed": (
        "Error! Bad return status for module build on kernel: 6.4.1-zen1-1-zen (x86_64)",
        "Error! Bad return status for module build on kernel: 6.8.10-300.fc40.x86_64 (x86_64)",
    ),
    # cupy/cupy#2781 (issue description), IshankGulati/Image-Processing-Mini-projects#2 (title)
    "opencv-argument-not-numpy": (
        "TypeError: lowerb is not a numpy array, neither a scalar",
        "r = cv2.bitwise_and(r, r, mask=mask_inv) TypeError: src1 is not a numpy array, neither a scalar",
    ),
    # PaddlePaddle/Paddle3D#264 (issue description), PaddlePaddle/Paddle#27221 (title)
    "paddle-conv-input-rank": (
        "InvalidArgumentError: The input of Op(Conv) should be a 4-D or 5-D Tensor. But received: input's dimension is 3, input's shape is [1, 3, 3].",
        "InvalidArgumentError: The input of Op(Conv) should be a 4-D or 5-D Tensor. But received: input's dimension is 3, input's shape is [1, 150, 150]",
    ),
    # AlexeyAB/darknet#86 (issue description, nvidia-smi.exe output, wrapped there); JosephKJ/OWOD#81 (issue description)
    "nvidia-smi-gpu-lost": (
        "Unable to determine the device handle for GPU 0000:03:00.0: GPU is lost.  Reboot",
        "Unable to determine the device handle for GPU 0000:02:00.0: GPU is lost. Reboot the system to recover this GPU",
    ),
    # NVIDIA/open-gpu-kernel-modules#862 (comment by cyril23, 2025-07-26, nvidia-smi's output)
    "nvidia-smi-no-devices-found": ("No devices were found",),
    # brucefan1983/GPUMD#738 (issue title); NVIDIA/nccl#102 (issue description)
    "nvcc-libstdcxx-parameter-packs": (
        "/usr/include/c++/11/bits/std_function.h:530:146: error: parameter packs not expanded with \u2018...\u2019:",
        "/usr/include/c++/6/tuple:605:4: error: parameter packs not expanded with \u2018...\u2019:",
    ),
    # levihsu/OOTDiffusion#65 (issue description); Tiiiger/QPyTorch#45 (issue description, the ninja output)
    "nvcc-unknown-dependency-option": (
        "编译报错 nvcc fatal   : Unknown option '-generate-dependencies-with-compile'",
        "nvcc fatal   : Unknown option '-generate-dependencies-with-compile'",
    ),
    # facebookresearch/detectron2#3098 (issue description, the build output); loki-47-6F-64/sunshine#361 (issue description)
    "nvcc-std-value-not-defined": (
        "    nvcc fatal   : Value 'c++14' is not defined for option 'std'",
        "nvcc fatal   : Value 'c++17' is not defined for option 'std'",
    ),
    # HKUST-Aerial-Robotics/Stereo-RCNN#63 (issue title); THUDM/CogDL#372 (issue description, the import-time warning)
    "torch-cpp-extension-cl-not-found": (
        "C:\\Users\\ahmed\\Anaconda2\\envs\\gp3\\lib\\site-packages\\torch\\utils\\cpp_extension.py:184: UserWarning: Error checking compiler version for cl: [WinError 2] The system cannot find the file specified warnin",
        "> c:\\ProgramData\\Anaconda3\\envs\\d2l\\lib\\site-packages\\torch\\utils\\cpp_extension.py:316: UserWarning: Error checking compiler version for cl: [WinError 2] 系统找不到指定的文件。",
    ),
    # BlueBrain/morphoclass#63 (issue description, docker build output); TUMFTM/teleoperated_driving#1 (issue description, docker build output)
    "apt-nvidia-repo-key-missing": (
        "  The following signatures couldn't be verified because the public key is not available: NO_PUBKEY A4B469963BF863CC",
        "0.777   The following signatures couldn't be verified because the public key is not available: NO_PUBKEY A4B469963BF863CC",
    ),
    # torch/cutorch#437 (issue description); ggml-org/llama.cpp#6727 (issue description, make output)
    "gcc-cc1plus-missing": (
        "gcc: error trying to exec 'cc1plus': execvp: No such file or directory",
        "gcc: fatal error: cannot execute \u2018cc1plus\u2019: execvp: No such file or directory",
    ),
    # nagadomi/waifu2x-caffe-ubuntu#9 (build output in the issue); open-mmlab/mmdeploy#177 (build output in the issue)
    "nvcc-deprecated-gpu-targets-notice": (
        "nvcc warning : The 'compute_35', 'compute_37', 'compute_50', 'sm_35', 'sm_37' and 'sm_50' architectures are deprecated, and may be removed in a future release (Use -Wno-deprecated-gpu-targets to suppress warning).",
        "nvcc warning : The 'compute_20', 'sm_20', and 'sm_21' architectures are deprecated, and may be removed in a future release (Use -Wno-deprecated-gpu-targets to suppress warning).",
    ),
    # NVIDIA/apex#1748 (issue description); NVIDIA/apex#955 (comment by ptrblck, 2020-10-28)
    "apex-cuda-version-mismatch": (
        "RuntimeError: Cuda extensions are being compiled with a version of Cuda that does not match the version used to compile Pytorch binaries.  Pytorch binaries were compiled with Cuda 12.1.",
        "RuntimeError: Cuda extensions are being compiled with a version of Cuda that does not match the version used to compile Pytorch binaries.  Pytorch binaries were compiled with Cuda 10.2.",
    ),
    # open-mmlab/mmdetection#4058 (issue description); open-mmlab/mmcv#2236 (issue description)
    "mmcv-version-incompatible": (
        "AssertionError: MMCV==1.1.4 is used but incompatible. Please install mmcv>=1.1.5, <=1.3.",
        "AssertionError: MMCV==1.3.9 is used but incompatible. Please install mmcv>=(1, 3, 13, 0, 0, 0), <(1, 7, 0, 0, 0, 0).",
    ),
    # facebookresearch/pytorch3d#1406 (issue description, build output); paulengstler/invisible-stitch#4 (build output in a comment)
    "torch-cuda-minor-version-mismatch-notice": (
        "/opt/conda/envs/faceverse/lib/python3.10/site-packages/torch/utils/cpp_extension.py:803: UserWarning: The detected CUDA version (11.3) has a minor version mismatch with the version that was used to compile PyTorch (11.2). Most likely this shouldn't be a problem.",
        "      /home2/s20225561/.conda/envs/invisible_stitch/lib/python3.10/site-packages/torch/utils/cpp_extension.py:418: UserWarning: The detected CUDA version (12.3) has a minor version mismatch with the version that was used to compile PyTorch (12.1). Most likely this shouldn't be a problem.",
    ),
    # Mined from public threads, round seven (the Hugging Face and LLM-serving stack); each comment names the thread
    # pytorch/pytorch#127271 (issue description, traceback); pytorch/pytorch#157242 (pull request description, quoted traceback)
    "torch-inductor-triton-key-missing": (
        "LoweringException: ImportError: cannot import name 'triton_key' from 'triton.compiler.compiler' (/home/yanbingj/anaconda3/envs/sam/lib/python3.10/site-packages/triton/compiler/compiler.py)",
        "ImportError: cannot import name 'triton_key' from 'triton.compiler.compiler' (/home/jansel/pytorch/triton/compiler/compiler.py)",
    ),
    # vllm-project/vllm#11584 (pull request description); helicalAI/helical#234 (pull request description); alipay/PainlessInferenceAcceleration#35 (issue description)
    "triton-out-of-resources-shared-memory": (
        "triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 65536, Hardware limit: 49152. Reducing block sizes or `num_stages` may help.",
        "OutOfResources: out of resource: shared memory, Required: 147456, Hardware limit: 101376. Reducing block sizes or `num_stages` may help.",
        "triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 163842, Hardware limitation: 101376. reducing the block size or `num_stages` may help",
    ),
    # AutoGPTQ/AutoGPTQ#249 (issue description); PromtEngineer/localGPT#402 (issue description); AutoGPTQ/AutoGPTQ#751 (issue description)
    "autogptq-cuda-extension-missing": (
        "CUDA kernels for auto_gptq are not installed, this will result in very slow inference speed. This may because:",
        "CUDA extension not installed.",
        "2023-08-23 13:49:27,776 - WARNING - qlinear_old.py:16 - CUDA extension not installed.",
        "WARNING:auto_gptq.nn_modules.qlinear.qlinear_cuda:CUDA extension not installed.",
    ),
    # AnswerDotAI/ModernBERT#145 (issue description); 1038lab/ComfyUI-QwenVL#3 (issue description)
    "transformers-unknown-model-type": (
        "ValueError: The checkpoint you are trying to load has model type `modernbert` but Transformers does not recognize this architecture. This could be because of an issue with the checkpoint, or because your version of Transformers is out of date.",
        "ERROR: The checkpoint you are trying to load has model type `qwen3_vl` but Transformers does not recognize this architecture. This could be because of an issue with the checkpoint, or because your version of Transformers is out of date.",
    ),
    # hustvl/Senna#17 (issue description); Nojahhh/ComfyUI_GLM4_Wrapper#3 (issue description)
    "transformers-quantized-modules-offloaded": (
        "ValueError: Some modules are dispatched on the CPU or the disk. Make sure you have enough GPU RAM to fit the quantized model. If you want to dispatch the model on the CPU or the disk while keeping these modules in 32-bit, you need to set 'load_in_8bit_fp32_cpu_offload=True' and pass a custom 'device_map' to 'from_pretrained'.",
        "Some modules are dispatched on the CPU or the disk. Make sure you have enough GPU RAM to fit the quantized model. If you want to dispatch the model on the CPU or the disk while keeping these modules in 32-bit, you need to set `load_in_8bit_fp32_cpu_offload=True` and pass a custom `device_map` to `from_pretrained`. Check https://huggingface.co/docs/transformers/main/en/main_classes/quantization#offload-between-cpu-and-gpu for more details.",
    ),
    # KoboldAI/KoboldAI-Client#382 (issue description); OpenGVLab/InternVL#1015 (issue title)
    "transformers-pad-token-open-end-notice": (
        "Setting `pad_token_id` to `eos_token_id`:50256 for open-end generation.",
        "Setting `pad_token_id` to `eos_token_id`:151645 for open-end generation.",
    ),
    # KoboldAI/KoboldAI-Client#382 (issue description); mosaicml/llm-foundry#118 (pull request description)
    "transformers-attention-mask-not-set-notice": (
        "The attention mask and the pad token id were not set. As a consequence, you may observe unexpected behavior. Please pass your input's `attention_mask` to obtain reliable results.",
    ),
    # yuanzhoulvpi2017/zero_nlp#49 (issue title); h2oai/h2o-llmstudio#70 (issue description)
    "transformers-use-cache-gradient-checkpointing-notice": (
        "`use_cache=True` is incompatible with gradient checkpointing. Setting `use_cache=False`...",
        "`use_cache=True is incompatible with gradient checkpointing. Setting use_cache=False...`",
    ),
    # AUTOMATIC1111/stable-diffusion-webui#8554 (issue description); ai-dock/stable-diffusion-webui#6 (issue description)
    "sd-webui-torch-cannot-use-gpu": (
        "AssertionError: Torch is not able to use GPU; add --skip-torch-cuda-test to COMMANDLINE_ARGS variable to disable this check",
        "`RuntimeError: Torch is not able to use GPU; add --skip-torch-cuda-test to COMMANDLINE_ARGS variable to disable this check`",
    ),
    # bitsandbytes-foundation/bitsandbytes#1467 (issue description); bitsandbytes-foundation/bitsandbytes#1409 (issue description)
    "bitsandbytes-native-library-not-loaded": (
        "ERROR:bitsandbytes.cextension:Could not load bitsandbytes native library: libcusparse.so.11: cannot open shared object file: No such file or directory",
        "Could not load bitsandbytes native library: /d1/.conda/newcmoe/lib/python3.10/site-packages/bitsandbytes/libbitsandbytes_cpu.so: cannot open shared object file: No such file or directory",
    ),
    # bitsandbytes-foundation/bitsandbytes#693 (issue title); bitsandbytes-foundation/bitsandbytes#1467 (issue title)
    "bitsandbytes-native-library-none": (
        "AttributeError: 'NoneType' object has no attribute 'cquantize_blockwise_fp16_nf4'",
        "AttributeError: 'NoneType' object has no attribute 'cquantize_blockwise_fp16_fp4'",
    ),
    # abetlen/llama-cpp-python#1994 (issue description); utilityai/llama-cpp-rs#866 (pull request description)
    "llama-cpp-unknown-model-architecture": (
        "llama_model_load: error loading model: error loading model architecture: unknown model architecture: 'llama4'",
        "2025-11-20T14:07:26.318944Z ERROR load_from_file: llama-cpp-2: error loading model: error loading model architecture: unknown model architecture: 'qwen3vlmoe' module=\"llama.cpp::llama_model_load\"",
    ),
    # claraverse-space/ClaraVerse#49 (issue description); zhaohb/ollama_ov#6 (issue description)
    "ollama-no-compatible-gpus": (
        'time=2025-04-29T20:11:09.132Z level=INFO source=gpu.go:377 msg="no compatible GPUs were discovered"',
        'time=2025-04-14T07:08:45.375Z level=INFO source=gpu.go:377 msg="no compatible GPUs were discovered"',
    ),
    # ComputationalRadiationPhysics/cuda_memtest#45 (issue description); ggml-org/llama.cpp#13527 (issue description)
    "cmake-no-cuda-compiler": ("  No CMAKE_CUDA_COMPILER could be found.",),
    # Learned from the ninth held-out set, read after its end score; each comment names the thread
    # NVIDIA/object-detection-tensorrt-example#2 (issue description)
    "ngc-container-cpu-without-avx": (
        "ERROR: This container was built for CPUs supporting at least the AVX instruction set, but",
    ),
    # debpalash/VoiceStudio#889 (uv's error and hint without backticks)
    "uv-no-distribution-for-current-platform": (
        "error: Distribution torch==2.8.0 \u2026 doesn't have a source distribution or wheel for the current platform",
    ),
    # jaredpalmer/kev#34 and the uv project thread of the twelfth held-out set (uv sync on the
    # CPython 3.14 it picked for an open requires-python)
    "uv-no-wheel-for-python": (
        "hint: You're using CPython 3.14 (`cp314`), but `torch` (v2.8.0) only has wheels with the following Python ABI tags: `cp312`, `cp313`, `cp313t`",
    ),
    # pluskid/Mocha.jl#57 (Mocha's cuDNN backend on a GPU below compute capability 3.0)
    "mocha-cudnn-arch-mismatch": ("ERROR: Arch mismatch",),
    # Nevuly/WSL2-Linux-Kernel-Rolling#13 (zsh's report of the crash, WSL 2 with driver 555)
    "nvidia-smi-segfault": ("[1]    494 segmentation fault  nvidia-smi",),
    "uv-no-wheel-for-platform": (
        "hint: You're on macOS (macosx_15_0_x86_64), but torch (v2.8.0) only has wheels for macosx_11_0_arm64",
    ),
    # void-linux/void-packages#14377 (nvidia-settings' output)
    "nvidia-settings-driver-not-loaded": ("ERROR: NVIDIA driver is not loaded",),
    # chenwei-zhao/captcha-recognizer#2 (the reporter's paste, typographic quotes and all)
    "windows-dll-error-loading": (
        "Erro loading \u201cxxx\\Lib\\site-packages\\torch\\lib\\fbgemm.dll\u201d or one of its dependencies.",
        # ostris/ai-toolkit#133 (the paste ends at the DLL's name)
        'Error loading "D:\\AI\\ai-toolkit\\venv\\Lib\\site-packages\\torch\\lib\\fbgemm.dll',
    ),
    # openai/CLIP#151; Teoge/DMPR-PS#17; jwyang/graph-rcnn.pytorch#39 (its paste lost the <>)
    "python-pickle-local-object": (
        "AttributeError: Can't pickle local object '_transform.<locals>.<lambda>'",
        "Can't pickle local object 'train_detector.<locals>.<lambda>'",
        "AttributeError: Can't pickle local object 'vg_hdf5.gt_roidb. locals .lambda'",
        # measured: pickle.dumps of a lambda defined in main(), CPython 3.13.0
        "AttributeError: Can't get local object 'main.<locals>.<lambda>'",
    ),
    # OpenNMT/CTranslate2#1076 (issue description)
    "ctranslate2-built-without-cudnn": (
        "Conv1D on GPU currently requires the cuDNN library which is not integrated in this build",
    ),
    # brentyi/egoallo#17 and aesara-devs/aesara#702 (tracebacks)
    "jax-traced-shape": (
        "TypeError: Shapes must be 1D sequences of concrete values of integer type, got (Traced<~int32[]>with<DynamicJaxprTrace>,).",
        "E   TypeError: Shapes must be 1D sequences of concrete values of integer type, got (Traced<ShapedArray(int64[])>with<DynamicJaxprTrace(level=0/1)>,).",
    ),
    # jax-ml/jax#705 (issue description)
    "jax-vmap-inconsistent-axis-sizes": ("got inconsistent map dimension sizes: set([10, 2])",),
    # Mined from public threads, round eight (compiled add-ons and version locks: PyG and
    # torchvision, DGL, mmcv, TF op libraries, Addons, Keras 2, NumPy, protobuf, TensorBoard,
    # MXNet, Caffe); each comment names the thread
    # rusty1s/pytorch_scatter#187 (issue description); Linaqruf/kohya-trainer#164 (issue description)
    "torch-extension-cuda-build-differs": (
        "RuntimeError: Detected that PyTorch and torch_scatter were compiled with different CUDA versions. PyTorch has CUDA version 11.0 and torch_scatter has CUDA version 11.2. Please reinstall the torch_scatter that matches your PyTorch install.",
        "RuntimeError: Detected that PyTorch and torchvision were compiled with different CUDA versions. PyTorch has CUDA Version=11.7 and torchvision has CUDA Version=11.6. Please reinstall the torchvision that matches your PyTorch install.",
    ),
    # securefederatedai/openfederatedlearning#999 (issue description, the reproducer); pytorch/pytorch#131668 (issue description, the smoke test's output)
    "torch-numpy-bridge-unavailable": (
        "RuntimeError: Numpy is not available",
        "RuntimeError: Could not infer dtype of numpy.int64",
    ),
    # open-mmlab/mmrotate#24 (issue description); Huang-ShiRui/Semi-UIR#30 (issue description)
    "mmcv-ops-extension-missing": (
        "No module named 'mmcv._ext'",
        "ModuleNotFoundError: No module named 'mmcv._ext'",
    ),
    # dmlc/dgl#7438 (comment by jbm-composer, 2024-06-26, the traceback's last line); snu-micc/LocalMapper#5 (issue description)
    "dgl-graphbolt-library-for-torch-missing": (
        "FileNotFoundError: Cannot find DGL C++ graphbolt library at /home/james/src/jbm/dgl/python/dgl/graphbolt/libgraphbolt_pytorch_2.3.0.so",
        "ImportError: Cannot load Graphbolt C++ library",
    ),
    # tensorflow/text#961 (issue description); google/sentencepiece#212 (issue description, the traceback's last line)
    "tf-op-library-undefined-tensorflow-symbol": (
        "NotFoundError: /usr/local/lib/python3.7/dist-packages/tensorflow_text/python/metrics/_text_similarity_metric_ops.so: undefined symbol: _ZN10tensorflow8OpKernel11TraceStringEPNS_15OpKernelContextEb",
        "tensorflow.python.framework.errors_impl.NotFoundError: /opt/conda/lib/python3.6/site-packages/tf_sentencepiece/_sentencepiece_processor_ops.so: undefined symbol: _ZN10tensorflow8internal21CheckOpMessageBuilder9NewStringEv",
    ),
    # Samsung/ONE#10481 (comment by seanshpark, 2023-03-08, both lines of the warning)
    "tfa-python-ops-version-unsupported": (
        "/usr/share/one/bin/venv/lib/python3.8/site-packages/tensorflow_addons/utils/ensure_tf_install.py:53: UserWarning: Tensorflow Addons supports using Python ops for all Tensorflow versions above or equal to 2.5.0 and strictly below 2.8.0 (nightly versions are not supported).",
        " The versions of TensorFlow you are currently using is 2.8.0 and is not supported.",
    ),
    # tensorflow/tensorflow#48799 (issue description, the traceback's last line); karaage0703/karaage-ai-book#37 (issue description, the traceback's last line)
    "keras-newer-than-tensorflow": (
        "AttributeError: module 'tensorflow.compat.v2.__internal__' has no attribute 'tf2'",
        "ImportError: cannot import name 'get_config' from 'tensorflow.python.eager.context' (/usr/local/lib/python3.7/dist-packages/tensorflow_core/python/eager/context.py)",
    ),
    # scikit-hep/pyhf#1683 (issue description); naurril/SUSTechPOINTS#44 (issue description, the first log line)
    "keras-metric-registered-twice": (
        "tensorflow.python.framework.errors_impl.AlreadyExistsError: Another metric with the same name already exists.",
        "2021-11-04 07:55:23.631303: E tensorflow/core/lib/monitoring/collection_registry.cc:77] Cannot register 2 metrics with the same name: /tensorflow/api/keras/optimizers",
    ),
    # tensorflow/tensorflow#34354 (issue description, the traceback's last line)
    "tf-cudart-symbol-not-found": (
        "tensorflow.python.framework.errors_impl.InternalError: cudaGetDevice() failed. Status: cudaGetErrorString symbol not found.",
    ),
    # dmlc/dgl#5427 (issue description); dmlc/dgl#5622 (comment by sumenties, 2023-05-04)
    "dgl-cuda-device-api-not-enabled": (
        "dgl._ffi.base.DGLError: [14:00:04] /opt/dgl/src/runtime/c_runtime_api.cc:82: Check failed: allow_missing: Device API cuda is not enabled. Please install the cuda version of dgl.",
        "DGLError: [15:53:54] /opt/dgl/src/runtime/c_runtime_api.cc:82: Check failed: allow_missing: Device API cuda is not enabled. Please install the cuda version of dgl.",
    ),
    # Xt-cyh/CoDI-Eval#4 (issue description); martinResearch/DEODR#152 (pull request description)
    "numpy-binary-size-changed": (
        "ValueError: numpy.dtype size changed, may indicate binary incompatibility. Expected 96 from C header, got 88 from PyObject",
        "numpy.ndarray size changed, may indicate binary incompatibility. Expected 88 from C header, got 80 from PyObject",
    ),
    # actigraph/agcounts#28 (issue description); mjhydri/BeatNet#26 (issue description)
    "numpy-removed-attribute": (
        "AttributeError: `np.float_` was removed in the NumPy 2.0 release. Use `np.float64` instead.",
        "AttributeError: module 'numpy' has no attribute 'float'.",
    ),
    # wmdebrito/googleOTP-to-andOTP#9 (issue description); protocolbuffers/protobuf#12938 (issue description)
    "protobuf-runtime-older-than-generated-code": (
        "ImportError: cannot import name 'builder' from 'google.protobuf.internal' (/home/petr/soubory/programovani/blenderkit/googleOTP-to-andOTP/venv/lib/python3.11/site-packages/google/protobuf/internal/__init__.py)",
        "ImportError: cannot import name 'builder'",
    ),
    # tensorflow/tensorboard#3443 (issue description, the error it quotes)
    "tensorboard-duplicate-plugins": ("ValueError: Duplicate plugins for name projector",),
    # Nerogar/OneTrainer#504 (issue description, relevant log output); Akegarasu/lora-scripts#656 (issue description)
    "tensorboard-without-tensorflow-notice": (
        "TensorFlow installation not found - running with reduced feature set.",
    ),
    # apache/mxnet#3739 (issue description); apache/mxnet#260 (issue description, older wording)
    "mxnet-built-without-cuda": (
        "mxnet.base.MXNetError: [11:28:30] src/storage/storage.cc:78: Compile with USE_CUDA=1 to enable GPU usage",
        "mxnet.base.MXNetError: [16:53:11] src/storage/storage.cc:43: Please compile with CUDA enabled",
    ),
    # anhttran/3dmm_cnn#30 (issue description); alexgkendall/SegNet-Tutorial#59 (issue description)
    "caffe-cpu-only-gpu-mode": (
        "F0107 18:26:07.968050  3245 common.cpp:66] Cannot use GPU in CPU-only Caffe: check mode.",
        "F0822 21:57:53.386196 38133 conv_layer.cpp:71] Cannot use GPU in CPU-only Caffe: check mode.",
    ),
    # Mined from public threads, round eight (Windows, conda and notebook environments); each
    # comment names the thread
    # harry0703/MoneyPrinterTurbo#90 (issue description); modelscope/ms-agent#175 (issue description)
    "openmp-runtime-loaded-twice": (
        "OMP: Error #15: Initializing libiomp5md.dll, but found libiomp5md.dll already initialized.",
    ),
    # microsoft/vscode-python#2559 (issue description); microsoft/vscode-python#22252 (comment by amunger, extension log)
    "powershell-script-execution-disabled": (
        "& : File C:\\dev\\loadtest\\env\\Scripts\\activate.ps1 cannot be loaded because running scripts is disabled on this system. For more information, see about_Execution_Policies at https:/go.microsoft.com/fwlink/?LinkID=135170.",
        "2023-10-25 15:17:43.566 [warning] Got env variables but with errors &: File C:\\src\\vscode-extension-samples\\helloworld-sample\\.venv\\Scripts\\Activate.ps1 cannot be loaded because running scripts is disabled on this system. For more information, see about_Execution_Policies at https://go.microsoft.com/fwlink/?LinkID=135170.",
        "    + CategoryInfo          : SecurityError: (:) [], PSSecurityException",
    ),
    # conda/conda#15762 (issue description); SillyTavern/SillyTavern-Launcher#27 (issue description)
    "conda-run-init-before-activate": ("CondaError: Run 'conda init' before 'conda activate'",),
    # johannes-do/botty#818 (issue description); huyvvo/BiB#2 (issue title line)
    "conda-shell-not-configured": (
        "CommandNotFoundError: Your shell has not been properly configured to use 'conda activate'.",
        "CommandNotFoundError: Your shell has not been properly configured to use 'conda deactivate'.",
    ),
    # mpcabete/bombcrypto-bot#734 (issue description); carykh/jes#23 (issue description, newer Windows wording)
    "windows-python-app-alias": (
        "Python was not found; run without arguments to install from the Microsoft Store, or disable this shortcut from Settings > Manage App Execution Aliases.",
        "Python was not found; run without arguments to install from the Microsoft Store, or disable this shortcut from Settings > Apps > Advanced app settings > App execution aliases.",
    ),
    # SystemPanic/flashinfer-windows#4 (issue description); JamePeng/llama-cpp-python#14 (issue description)
    "ctypes-dll-or-dependency-not-found": (
        "(EngineCore pid=12800) FileNotFoundError: Could not find module 'D:\\cuda\\v13.0\\bin\\cudart64_13.dll' (or one of its dependencies). Try using the full path with constructor syntax.",
        "FileNotFoundError: Could not find module 'C:\\Users\\water\\AppData\\Local\\Programs\\Python\\Python311\\Lib\\site-packages\\llama_cpp\\lib\\ggml.dll' (or one of its dependencies). Try using the full path with constructor syntax.",
    ),
    # starsimhub/fpsim#308 (issue description); gwmod/nlmod#423 (issue description)
    "tqdm-ipywidgets-missing-notice": (
        "/home/docs/checkouts/readthedocs.org/user_builds/institute-for-disease-modeling-fpsim/envs/latest/lib/python3.9/site-packages/tqdm/auto.py:21: TqdmWarning: IProgress not found. Please update jupyter and ipywidgets. See https://ipywidgets.readthedocs.io/en/stable/user_install.html",
        "C:\\Users\\Ruben\\miniconda3\\envs\\meijendel\\Lib\\site-packages\\tqdm\\auto.py:21: TqdmWarning: IProgress not found. Please update jupyter and ipywidgets. See https://ipywidgets.readthedocs.io/en/stable/user_install.html",
    ),
    # ebanalyse/NERDA#7 (comment by gklabs); jupyter-widgets/ipywidgets#2527 (issue title, older tqdm wording)
    "tqdm-notebook-without-ipywidgets": (
        "ImportError: IProgress not found. Please update jupyter and ipywidgets. See https://ipywidgets.readthedocs.io/en/stable/user_install.html",
        "ImportError: IntProgress not found. Please update jupyter and ipywidgets.",
    ),
    # googlecolab/colabtools#5197 (issue description); omry/omegaconf#1209 (issue description)
    "colab-restart-runtime-after-install": (
        "You must restart the runtime in order to use newly installed versions.",
    ),
    # computational-cell-analytics/dl-for-micro#20 (issue description); cj-mills/pytorch-yolox-object-detection-tutorial-code#7 (issue description)
    "spawn-worker-cannot-find-main-attribute": (
        "AttributeError: Can't get attribute 'CustomDataset' on <module '__main__' (built-in)>",
        "AttributeError: Can't get attribute 'HagridDataset' on <module '__main__' (built-in)>**",
    ),
    # tensorflow/tensorflow#32109 (issue description); tensorflow/tensorflow#35409 (issue description); python/cpython#79435 (issue title)
    "windows-status-illegal-instruction": (
        "ImportError: DLL load failed with error code 3221225501",
        "ImportError: DLL load failed with error code -1073741795",
        "Process finished with exit code -1073741795 (0xC000001D)",
    ),
    # utilityai/llama-cpp-rs#583 (issue description)
    "windows-status-dll-not-found": (
        "error: process didn't exit successfully: `target\\release\\simple.exe local D:/models/gemma-2-9b-it-Q8_0.gguf` (exit code: 0xc0000135, STATUS_DLL_NOT_FOUND)",
    ),
    # microsoft/PTVS#5140 (issue description); pulumi/pulumi#8977 (issue description); pypa/virtualenv#1139 (comment by manishjain84)
    "python-ssl-module-unavailable": (
        "pip is configured with locations that require TLS/SSL, however the ssl module in Python is not available.",
        "WARNING: pip is configured with locations that require TLS/SSL, however the ssl module in Python is not available.",
        "  Retrying (Retry(total=4, connect=None, read=None, redirect=None, status=None)) after connection broken by 'SSLError(\"Can't connect to HTTPS URL because the SSL module is not available.\")': /simple/pandas/",
    ),
    # databrickslabs/dbx#778 (issue description); starik222/BooruDatasetTagManager#197 (issue description)
    "windows-filename-too-long": (
        "ERROR: Could not install packages due to an OSError: [WinError 206] The filename or extension is too long: 'C:\\\\Users\\\\redacted\\\\AppData\\\\Local\\\\Packages\\\\PythonSoftwareFoundation.Python.3.10_qbz5n2kfra8p0\\\\LocalCache\\\\local-packages\\\\Python310\\\\site-packages\\\\dbx\\\\templates\\\\projects\\\\python_basic\\\\render\\\\{{cookiecutter.project_name}}\\\\{{cookiecutter.project_slug}}\\\\tasks'",
        "ERROR: Could not install packages due to an OSError: [WinError 206] The filename or extension is too long: 'C:\\\\Users\\\\Ashley\\\\AppData\\\\Local\\\\Packages\\\\PythonSoftwareFoundation.Python.3.10_qbz5n2kfra8p0\\\\LocalCache\\\\local-packages\\\\Python310\\\\site-packages\\\\onnx\\\\backend\\\\test\\\\data\\\\node\\\\test_attention_3d_with_past_and_present_qk_matmul_softcap_expanded\\\\test_data_set_0'",
    ),
    # microsoft/vscode-jupyter#15544 (issue description); microsoft/vscode-jupyter#9969 (issue description, older wording); microsoft/vscode-jupyter#13315 (issue description)
    "vscode-kernel-needs-ipykernel": (
        "Running cells with 'Python 3.11.9' requires the ipykernel package.",
        "Running cells with 'Python 3.8.10 ('venv': venv)' requires ipykernel package.",
        "Running cells with 'myenv' requires the ipykernel package.",
    ),
    # Mined from public threads, round nine (GPUs in clusters and schedulers); each comment
    # names the thread
    # siderolabs/pkgs#720 (issue description); NVIDIA/gpu-driver-container#735 (issue description); NVIDIA/gpu-operator#544 (issue description, journal line)
    "fabricmanager-driver-version-mismatch": (
        "fabric manager NVIDIA GPU driver interface version 525.85.12 don't match with driver version 530.41.03. Please update with matching NVIDIA driver package",
        "fabric manager NVIDIA GPU driver interface version 590.48.01 don't match with driver version 580.126.09.",
        "nv-fabricmanager[3228]: fabric manager NVIDIA GPU driver interface version 530.30.02 don't match with driver version 530.41.03. Please update with matching NVIDIA driver package.",
    ),
    # containerd/containerd#6389 (issue description, kubectl describe); NVIDIA/gpu-operator#730 (issue description, pod events)
    "containerd-nvidia-runtime-not-configured": (
        ' Warning  FailedCreatePodSandBox  5s (x7 over 84s)    kubelet            Failed to create pod sandbox: rpc error: code = Unknown desc = failed to get sandbox runtime: no runtime for "nvidia" is configured',
        '  Warning  FailedCreatePodSandBox  12s (x10 over 2m11s)  kubelet            Failed to create pod sandbox: rpc error: code = Unknown desc = failed to get sandbox runtime: no runtime for "nvidia" is configured',
    ),
    # NVIDIA/deepops#1214 (issue title, quoting slurmd's error)
    "slurm-nvml-autodetect-not-built": (
        "fatal: We were configured to autodetect nvml functionality, but we weren't able to find that lib when Slurm was configured",
    ),
    # awslabs/awsome-distributed-ai#195 (issue description; comment by MouseSun846, scontrol show node)
    "slurm-gres-gpu-count-lower": (
        "Reason=gres/gpu count reported lower than configured (0 < 8)",
        "   Reason=gres/gpu count reported lower than configured (0 < 1) [slurm@2024-12-19T11:03:34]",
    ),
    # open-mpi/ompi#4405 (issue description); open-mpi/ompi#12279 (comment by christgau, non-GPU node)
    "openmpi-cuda-aware-libcuda-missing": (
        "The library attempted to open the following supporting CUDA libraries,",
        "[non-gpu-node:2426494] mca_base_component_repository_open: unable to open mca_accelerator_cuda: libcuda.so.1: cannot open shared object file: No such file or directory (ignored)",
    ),
    # NVIDIA/k8s-device-plugin#253 (comment by anaconda2196, plugin pod log)
    "k8s-device-plugin-mig-without-devices": (
        "panic: At least one device with migEnabled=true was not configured correctly: No MIG devices associated with /dev/nvidia0: GPU-fe14a161-d1f3-7706-c257-3b22fe15c684",
    ),
    # NVIDIA/k8s-device-plugin#399 (issue description, plugin log as pasted)
    "k8s-device-plugin-mig-monitor-permissions": (
        "error starting plugins: unable to add default resources to config: error visiting devices: error visiting device: error visiting device: error getting device memory info: Insufficient Pemmissions",
    ),
    # NVIDIA/gpu-operator#118 (issue description, nvidia-smi output)
    "nvidia-smi-mig-mode-pending": (
        "Warning: MIG mode is in pending disable state for GPU 00000000:C1:00.0:In use by another client",
    ),
    # vllm-project/vllm#29265 (issue description, engine log); EleutherAI/lm-evaluation-harness#2410 (issue description)
    "vllm-ray-current-node-no-gpu": (
        "(EngineCore_DP0 pid=504) ValueError: Current node has no GPU available. current_node_resource={'accelerator_type:T4': 1.0, 'bundle_group_7_5dae406aeb52bbda8836db50069101000000': 999.999, 'memory': 188995160884.0, 'bundle_group_6_5dae406aeb52bbda8836db50069101000000': 999.999, 'node:74.10.28.48': 1.0, 'bundle_group_5dae406aeb52bbda8836db50069101000000': 1999.998, 'CPU': 112.0, 'object_store_memory': 80997926092.0}. vLLM engine cannot start without GPU. Make sure you have at least 1 GPU available in a node current_node_id='25ce3df78af6f2152950b2eb804c59f55b331e21f8c4f92db852228d' current_ip='74.10.28.48'.",
        "ValueError: Current node has no GPU available. current_node_resource={'memory': 803011488768.0, 'bundle_group_2_5999116f8a6e3cc0472c77e709e801000000': 1000.0, 'GPU_group_0_5999116f8a6e3cc0472c77e709e801000000' : 1.0, 'node:__internal_head__': 1.0, 'node:131.179.168.116_group_5999116f8a6e3cc0472c77e709e801000000': 0.001, 'accelerator_type:A100': 1.0, 'node:131.179.168.116_group_0_5999116f8a6e3cc0472c77e709e801000000'",
    ),
    # deepspeedai/DeepSpeedExamples#516 (issue description, traceback); OptimalScale/LMFlow#304 (issue description, traceback)
    "deepspeed-launcher-no-gpu": (
        "RuntimeError: Unable to proceed, no GPU resources available",
        '    raise RuntimeError("Unable to proceed, no GPU resources available")',
    ),
    # pytorch/pytorch#139990 (issue description, traceback); cocktailpeanut/fluxgym#302 (issue description, traceback)
    "torch-distributed-libuv-missing-windows": (
        "RuntimeError: use_libuv was requested but PyTorch was build without libuv support",
        "    RuntimeError: use_libuv was requested but PyTorch was build without libuv support",
    ),
    # tinyvision/DAMO-YOLO#63 (issue description, traceback); mit-han-lab/distrifuser#11 (issue title)
    "torch-env-rendezvous-variable-unset": (
        "ValueError: Error initializing torch.distributed using env:// rendezvous: environment variable RANK expected, but not set",
        "Failed to initialize process group: Error initializing torch.distributed using env:// rendezvous: environment variable RANK expected, but not set, falling back to single GPU",
    ),
    # Mined from public threads, round ten (shared environments: frameworks and NVIDIA's pip
    # wheels); each comment names the thread
    # MahmoudAshraf97/whisper-diarization#343 (issue description), opendatalab/MinerU#2664 (issue title)
    "cudnn-graph-lib-config-missing": (
        "Could not load symbol cudnnGetLibConfig. Error: /lib/x86_64-linux-gnu/libcudnn_graph.so.9: undefined symbol: cudnnGetLibConfig",
        "symbol cudnnGetLibConfig. Error: /usr/local/cuda/lib64/libcudnn_graph.so.9: undefined symbol: cudnnGetLibConfig",
    ),
    # lfranke/TRIPS#13 (issue description), NVIDIA/numba-cuda#196 (PR description, the old and the new error)
    "nvrtc-builtins-not-loadable": (
        "nvrtc: error: failed to open libnvrtc-builtins.so.11.6",
        "nvrtc: error: failed to open libnvrtc-builtins.so.12.8.",
        "  Failed to call nvrtcCompileProgram: NVRTC_ERROR_BUILTIN_OPERATION_FAILURE",
    ),
    # apple/axlearn#858 (issue description), jax-ml/jax#17624 (comment by lakatosgabor, 2023-11-01)
    "pip-nvidia-wheel-pin-mismatch": (
        'torch 2.1.1 requires nvidia-cudnn-cu12==8.9.2.26; platform_system == "Linux" and platform_machine == "x86_64", but you have nvidia-cudnn-cu12 9.5.1.17 which is incompatible.',
        'torch 2.1.0 requires nvidia-cublas-cu12==12.1.3.1; platform_system == "Linux" and platform_machine == "x86_64", but you have nvidia-cublas-cu12 12.3.2.9 which is incompatible.',
    ),
    # Asad-Ismail/MoneyPrinterTurbo-Extended#4 (issue description), rdyro/torch2jax#29 (comment by
    # rdyro, 2025-04-26), tensorflow/tensorflow#68290 (issue description)
    "resolver-nvidia-wheel-pins-conflict": (
        "    The user requested nvidia-cudnn-cu12==9.1.0.70",
        "  ╰─▶ Because torch>=2.2.0,<=2.3.1 depends on nvidia-cudnn-cu12{platform_machine",
        "Because tensorflow[and-cuda] (2.15.0) depends on nvidia-nccl-cu12 (2.16.5)",
    ),
    # pytorch/pytorch#100974 (issue description), finic-ai/rag-stack#44 (issue description)
    "torch-cuda-wheels-not-on-sys-path": (
        "ValueError: libnvrtc.so.*[0-9].*[0-9] not found in the system path",
        "libcublas.so.*[0-9] not found in the system path",
    ),
    # cupy/cupy#1073 (issue description), Nuitka/Nuitka#422 (comment by yoshihingis)
    "cupy-not-correctly-installed": (
        "ImportError: CuPy is not correctly installed.",
        "If you are using wheel distribution (cupy-cudaXX), make sure that the version of CuPy you installed matches with the version of CUDA on your host.",
    ),
    # m-beau/NeuroPyxels#377 (issue description)
    "cupy-cuda-path-not-detected": (
        "UserWarning: CUDA path could not be detected. Set CUDA_PATH environment variable if CuPy fails to load.",
    ),
    # jax-ml/jax#26750 (issue description), epaillas/acm#152 (issue description), prs-eth/thera#7
    # (issue description)
    "jax-plugin-initialize-failed": (
        "```Jax plugin configuration error: Exception when calling jax_plugins.xla_cuda12.initialize()",
        "ERROR:2026-01-30 07:41:46,407:jax._src.xla_bridge:477: Jax plugin configuration error: Exception when calling jax_plugins.xla_cuda12.initialize()",
        "```Jax plugin configuration error: Plugin module %s could not be loaded",
    ),
    # jax-ml/jax#26750 (issue title), jax-ml/jax#28229 (issue description)
    "jaxlib-module-missing-attribute": (
        "AttributeError: module 'jaxlib.xla_client' has no attribute 'register_custom_type_id_handler'.",
        "AttributeError: module 'jaxlib.xla_client' has no attribute 'generate_pjrt_gpu_plugin_options'",
    ),
    # NixOS/nixpkgs#375186 (comment by stephen-huan, 2025-01-20)
    "jax-cuda-runtime-not-loadable": (
        "Unable to load CUDA. Is it installed?",
        "RuntimeError: jaxlib/cuda/versions_helpers.cc:33: operation cudaRuntimeGetVersion(&version) failed: Error loading CUDA libraries. GPU will not be used.",
    ),
    # Mined from public threads, round ten (building and shipping GPU containers); each
    # comment names the thread
    # NVIDIA/nvidia-docker#1454 (issue description, docker pull output); agrimgupta92/metamorph#3 (issue description, docker build output)
    "nvidia-cuda-image-tag-not-found": (
        "Error response from daemon: manifest for nvidia/cuda:latest not found: manifest unknown: manifest unknown",
        "manifest for nvidia/cuda:11.1-cudnn8-devel-ubuntu20.04 not found: manifest unknown: manifest unknown",
    ),
    # NVlabs/instant-ngp#1185 (issue description, container start log); ilkerccom/bitcrackrandomiser#61 (issue description, timestamped container log)
    "nvidia-cuda-image-deprecation-notice": (
        "THIS IMAGE IS DEPRECATED and is scheduled for DELETION.",
        "2025-01-26T06:11:56.856671876Z THIS IMAGE IS DEPRECATED and is scheduled for DELETION.",
    ),
    # NVIDIA/nvidia-docker#1199 (issue description; the same line in NVIDIA/gpu-monitoring-tools#112)
    "docker-gpus-flag-unknown": ("unknown flag: --gpus",),
    # triton-inference-server/server#135 (issue description); NVIDIA/DeepLearningExamples#964 (issue title)
    "ngc-no-supported-gpu-detected": (
        "ERROR: No supported GPU(s) detected to run this container",
        "[MaskRCNN/Pytorch] ERROR: No supported GPU(s) detected to run this container",
    ),
    # HuangJunJie2017/BEVDet#314 (issue description); fauxpilot/fauxpilot#248 (issue description, compose log)
    "ngc-gpu-not-yet-supported": (
        "WARNING: Detected NVIDIA NVIDIA GeForce RTX 4090 GPU, which is not yet supported in this version of the container",
        "triton-1         | WARNING: Detected NVIDIA NVIDIA GeForce RTX 4060 GPU, which is not yet supported in this version of the container",
    ),
    # NVIDIA/caffe#525 (issue description); fauxpilot/fauxpilot#69 (issue title)
    "ngc-gpu-not-supported": (
        "ERROR: Detected NVIDIA Tesla K80 GPU, which is not supported by this container",
        "ERROR: Detected NVIDIA Tesla K40m GPU, which is not supported by this container",
    ),
    # NVIDIA/nvidia-container-toolkit#106 (issue description); NVIDIA/nvidia-container-toolkit#1487 (issue description)
    "container-cli-rootless-cgroup-bpf": (
        "nvidia-container-cli: mount error: failed to add device rules: unable to find any existing device filters attached to the cgroup: bpf_prog_query(BPF_CGROUP_DEVICE) failed: operation not permitted: unknown.",
        "nvidia-container-cli: mount error: failed to add device rules: unable to find any existing device filters attached to the cgroup: bpf_prog_query(BPF_CGROUP_DEVICE) failed: operation not permitted",
    ),
    # moby/moby#38729 (issue description); NVIDIA/nvidia-docker#1155 (issue description)
    "container-cli-rootless-devices-allow": (
        'docker: Error response from daemon: OCI runtime create failed: container_linux.go:344: starting container process caused "process_linux.go:424: container init caused \\"process_linux.go:407: running prestart hook 1 caused \\\\\\"error running hook: exit status 1, stdout: , stderr: exec command: [/usr/bin/nvidia-container-cli --load-kmods configure --ldconfig=@/sbin/ldconfig --device=all --compute --utility --require=cuda>=10.0 brand=tesla,driver>=384,driver<385 --pid=548 /home/suda/.local/share/docker/vfs/dir/122c480857379482f5317caaca55bbf5e43f84991accfa9f3ea586ed63f3fabd]\\\\\\\\nnvidia-container-cli: mount error: open failed: /sys/fs/cgroup/devices/user.slice/devices.allow: permission denied\\\\\\\\n\\\\\\"\\"": unknown.',
        'hook: exit status 1, stdout: , stderr: nvidia-container-cli: mount error: open failed: /sys/fs/cgroup/devices/user.slice/devices.allow: permission denied\\\\\\\\n\\\\\\"\\"": unknown.',
    ),
    # NVIDIA/nvidia-container-runtime#144 (issue description, apt output); NVIDIA/nvidia-docker#965 (issue description, apt output)
    "apt-nvidia-repo-key-expired": (
        "  The following signatures were invalid: EXPKEYSIG 6ED91CA3AC1160CD NVIDIA CORPORATION (Open Source Projects) <cudatools@nvidia.com>",
        "The following signatures were invalid: EXPKEYSIG C45B1676A04EA552 NVIDIA CORPORATION (Open Source Projects) <cudatools@nvidia.com>",
    ),
    # NVIDIA/cuda-repo-management#4 (comment by kmittman, the error as NVIDIA quotes it; the repository address follows on the next line)
    "apt-repo-signed-by-conflict": (
        "E: Conflicting values set for option Signed-By regarding source ",
    ),
    # NVIDIA/nvidia-container-toolkit#97 (issue description; the same line in NVIDIA/nvidia-docker#1049)
    "apt-nvidia-container-toolkit-not-located": (
        "E: Unable to locate package nvidia-container-toolkit",
    ),
    # NVIDIA/nvidia-docker#1160 (issue description, shell in a -runtime image); NVIDIA/nvidia-docker#1322 (issue description, docker build output); anibali/docker-pytorch#17 (issue description)
    "nvcc-not-found": (
        "bash: nvcc: command not found",
        "/bin/sh: 1: nvcc: not found",
        "`nvcc: command not found`",
    ),
    # iot-salzburg/gpu-jupyter#46 (issue description); docker/cli#3135 (issue description, docker stack deploy output)
    "compose-gpu-device-reservation-unsupported": (
        "services.gpu-jupyter.deploy.resources.reservations value Additional properties are not allowed ('devices' was unexpected)",
        "services.test.deploy.resources.reservations Additional property devices is not allowed",
    ),
    # singularityhub/singularityhub.github.io#166 (issue description); apptainer/apptainer#1205 (issue description)
    "singularity-underlay-bind-mounts-notice": (
        "warning: underlay of /usr/bin/nvidia-smi required more than 50 bind mounts",
        "INFO:    underlay of /usr/bin/nvidia-smi required more than 50 (751) bind mounts",
    ),
    # AlexeyAB/darknet#6586 (issue title); amazon-archives/amazon-dsstne#96 (issue description, make output)
    "cudnn-header-not-found": (
        "fatal error: cudnn.h: No such file or directory",
        "GpuTypes.h:23:19: fatal error: cudnn.h: No such file or directory",
    ),
    # Mined from public threads, round ten (speech, vision and media stacks); each comment
    # names the thread
    # styler00dollar/VSGAN-tensorrt-docker#42 (issue description); linuxserver/docker-plex#340 (issue description)
    "ffmpeg-nvenc-library-not-loaded": (
        "[hevc_nvenc @ 0x55ca461fa380] Cannot load libnvidia-encode.so.1  ",
        "Oct 21, 2022 16:01:12.613 [0x7f1c07a08b38] ERROR - [Req#225/Transcode] [FFMPEG] - Cannot load libnvidia-encode.so.1",
    ),
    # NVIDIA/nvidia-docker#531 (issue description); NVIDIA/nvidia-docker#766 (issue description)
    "ffmpeg-nvcuvid-library-not-loaded": (
        "Cannot load libnvcuvid.so.1",
        "[h264_cuvid @ 0x1ec8780] Cannot load libnvcuvid.so.1",
    ),
    # HandBrake/HandBrake#1998 (issue description); HandBrake/HandBrake#2943 (issue description)
    "nvenc-unsupported-device": (
        "[h264_nvenc @ 00000198ad95a9c0] OpenEncodeSessionEx failed: unsupported device (2)",
        "[h264_nvenc @ 000001af5eaca480] OpenEncodeSessionEx failed: unsupported device (2)",
    ),
    # valkjsaaa/auto-bilibili-recorder#9 (issue description); joinhive-ai/transcoder#11 (issue description)
    "nvenc-session-limit": (
        "[h264_nvenc @ 0x5601aa5b40c0] OpenEncodeSessionEx failed: out of memory (10)",
        "[h264_nvenc @ 0000023a79212040] OpenEncodeSessionEx failed: out of memory (10): (no details)",
    ),
    # markus-perl/ffmpeg-build-script#196 (issue description)
    "ffmpeg-unknown-nvidia-codec": ("unknown encoder 'hevc_nvenc'",),
    # opencv/opencv-python#398 (issue description); feichtenhofer/gpu_flow#11 (issue description)
    "opencv-compiled-without-cuda": (
        "cv2.error: OpenCV(4.4.0) C:\\Users\\appveyor\\AppData\\Local\\Temp\\1\\pip-req-build-52oirelq\\opencv\\modules\\core\\include\\opencv2/core/private.cuda.hpp:106: error: (-216:No CUDA support) The library is compiled without CUDA support in function 'throw_no_cuda'",
        "OpenCV Error: No GPU support (The library is compiled without CUDA support) in setDevice, file /build/opencv-SviWsf/opencv-2.4.9.1+dfsg/modules/dynamicuda/include/opencv2/dynamicuda/dynamicuda.hpp, line 84",
    ),
    # thecanadianroot/opencv-cuda-docker#5 (issue description); ai-aimbot/AIMr#8 (issue description)
    "opencv-dnn-built-without-cuda-backend": (
        "[ WARN:0] global ../modules/dnn/src/dnn.cpp (1451) setUpNet DNN module was not built with CUDA backend; switching to CPU",
        "[WARM:0@2.582] global net_impl.cpp:174 cv::dmn::dnn4_v20221220:Net::Impl::setUpNet DNN module was not built with CUDA backend;switching to CPU",
    ),
    # opencv/opencv#18382 (issue description); opencv/opencv#17883 (issue description)
    "opencv-dnn-cuda-arch-not-built": (
        "cv2.error: OpenCV(4.4.0) /home/ycc/opencv-4.4.0/modules/dnn/src/dnn.cpp:2353: error: (-216:No CUDA support) OpenCV was not built to work with the selected device. Please check CUDA_ARCH_PTX or CUDA_ARCH_BIN in your build configuration. in function 'initCUDABackend'",
        " error: (-216:No CUDA support) OpenCV was not built to work with the selected device. Please check CUDA_ARCH_PTX or CUDA_ARCH_BIN in your build configuration. in function 'initCUDABackend'",
    ),
    # davisking/dlib#2125 (issue description, the CMake output)
    "dlib-build-without-cuda": (
        "-- Disabling CUDA support for dlib.  DLIB WILL NOT USE CUDA",
        "-- *** Dlib requires cuDNN V5.0 OR GREATER.  Since cuDNN is not found DLIB WILL NOT USE CUDA. ***",
    ),
    # j20001970/GDMP#67 (issue description)
    "mediapipe-gpu-disabled-in-build": (
        "ImageCloneCalculator: GPU processing is disabled in build flags",
    ),
    # OpenTalker/SadTalker#1012 (issue description); Zheng-MJ/SMFANet#8 (issue description)
    "torchvision-functional-tensor-missing": (
        "ModuleNotFoundError: No module named 'torchvision.transforms.functional_tensor'",
        "ModuleNotFoundError: No module named 'torchvision.transforms._functional_tensor'",
    ),
    # JuergenFleiss/atrain_core#12 (issue description); m-bain/whisperX#546 (issue description)
    "pyannote-model-trained-with-older-version": (
        "Model was trained with pyannote.audio 0.0.1, yours is 3.2.0. Bad things might happen unless you revert pyannote.audio to 0.x.",
        "Model was trained with torch 1.10.0+cu102, yours is 2.1.0+cu118. Bad things might happen unless you revert torch to 1.x",
    ),
    # Huanshere/VideoLingo#158 (issue description); m-bain/whisperX#998 (issue description)
    "lightning-checkpoint-auto-upgraded": (
        "Lightning automatically upgraded your loaded checkpoint from v1.5.4 to v2.4.0. To apply the upgrade to your files permanently, run `python -m pytorch_lightning.utilities.upgrade_checkpoint ../../../.cache/torch/whisperx-vad-segmentation.bin`",
        "Lightning automatically upgraded your loaded checkpoint from v1.5.4 to v2.5.0.post0. To apply the upgrade to your files permanently, run `python -m pytorch_lightning.utilities.upgrade_checkpoint whisperx/lib/python3.12/site-packages/whisperx/assets/pytorch_model.bin`",
    ),
    # pyannote/pyannote-audio#1370 (comment by ci21-cgarijo, 2025-03-31); jhj0517/Whisper-WebUI#373 (issue description)
    "pyannote-tf32-disabled-notice": (
        "ReproducibilityWarning: TensorFloat-32 (TF32) has been disabled as it might lead to reproducibility issues and lower accuracy.",
        "F:\\Whisper-WebUI\\venv\\Lib\\site-packages\\pyannote\\audio\\utils\\reproducibility.py:74: ReproducibilityWarning: TensorFloat-32 (TF32) has been disabled as it might lead to reproducibility issues and lower accuracy.",
    ),
    # m-bain/whisperX#805 (issue description); rishikanthc/Scriberr#246 (comment by stony007de, 2025-11-28)
    "torchaudio-backend-function-deprecated": (
        ": UserWarning: torchaudio._backend.set_audio_backend has been deprecated. With dispatcher enabled, this function is no-op. You can remove the function call.",
        "scriberr-1  | DEBUG: WhisperX stderr/stdout: /app/whisperx-env/WhisperX/.venv/lib/python3.10/site-packages/pyannote/audio/core/io.py:212: UserWarning: torchaudio._backend.list_audio_backends has been deprecated. This deprecation is part of a large refactoring effort to transition TorchAudio into a maintenance phase. The decoding and encoding capabilities of PyTorch for both audio and video are being consolidated into TorchCodec. Please see https://github.com/pytorch/audio/issues/3902 for more information. It will be removed from the 2.9 release. ",
    ),
    # ogkalu2/comic-translate#17 (issue description); ultralytics/yolov5#474 (issue description)
    "ultralytics-cuda-device-unavailable": (
        "An Error occurred: Invalid CUDA 'device=0' requested. Use 'device=cpu' or pass valid CUDA device(s) if available, i.e. 'device=0' or 'device=0,1,2,3' for Multi-GPU.",
        "AssertionError: CUDA unavailable, invalid device 0 requested",
    ),
    # dsymbol/decipher#8 (issue description); shirayu/whispering#76 (issue description)
    "whisper-fp16-on-cpu": (
        "UserWarning: FP16 is not supported on CPU; using FP32 instead",
        "transcriber._set_dtype:35 WARNING -> FP16 is not supported on CPU; using FP32 instead",
    ),
    # Mined from public threads, round nine (GPU generations against builds); each comment
    # names the thread
    # NVIDIA/TensorRT#1428 (issue description, the [E] line) and NVIDIA/TensorRT#3826 (comment by lix19937 quoting the log)
    "tensorrt-unsupported-sm": (
        "[E] [TRT] C:\\source\\rtSafe\\cuda\\caskUtils.cpp (80) - Assertion Error in nvinfer1::rt::task::trtSmToCask: 0 (Unsupported SM.)",
        "[04/25/2024-15:52:54] [TRT] [E] 1: [caskUtils.cpp::nvinfer1::rt::task::trtSmToCask::193] Error Code 1: Internal Error (Unsupported SM: 0x601)",
    ),
    # DDTRobot/tita_rl_sim2sim2real#7 (issue description, trtexec output) and NVIDIA/TensorRT#4359 (issue description)
    "tensorrt-target-sm-unsupported": (
        "[07/19/2025-23:34:55] [E] Error[9]: IBuilder::buildSerializedNetwork: Error Code 9: API Usage Error (Target GPU SM 120 is not supported by this TensorRT release.)",
        "[02/18/2025-07:04:51] [TRT] [E] IBuilder::buildSerializedNetwork: Error Code 9: API Usage Error (Target GPU SM 61 is not supported by this TensorRT release.)",
    ),
    # woct0rdho/triton-windows#93 (issue description) and pytorch/pytorch#95082 (comment by egaebel, 2023-02-21)
    "llvm-nvptx-unknown-processor": (
        "'sm_120' is not a recognized processor for this target (ignoring processor)",
        "'sm_89' is not a recognized processor for this target (ignoring processor)",
    ),
    # ggml-org/whisper.cpp#2368 (issue description) and mozilla-ai/llamafile#434 (issue description)
    "ggml-cuda-no-device-code-for-arch": (
        "ggml/src/ggml-cuda/template-instances/../mmq.cuh:2589: ERROR: CUDA kernel mul_mat_q has no device code compatible with CUDA arch 520. ggml-cuda.cu was compiled for: 520",
        "ggml-cuda.cu:1412: ERROR: CUDA kernel vec_dot_q4_K_q8_1_impl_vmmq has no device code compatible with CUDA arch 600. ggml-cuda.cu was compiled for: 500,600,700,800,900",
    ),
    # meta-pytorch/tritonbench#691 (pull request description) and mit-han-lab/fouroversix#13 (issue description)
    "cutlass-arch-conditional-mma": (
        "ERROR : Arch conditional MMA instruction used without targeting appropriate compute capability. Aborting.",
        "Arch conditional MMA instruction used without targeting appropriate compute capability.",
    ),
    # jax-ml/jax#9644 (issue description traceback) and JuliaGPU/cuTile.jl#9 (issue description)
    "cuda-jit-compiler-library-missing": (
        "RuntimeError: UNKNOWN: PTX JIT compiler library not found",
        "ERROR: CUDA error: PTX JIT compiler library not found (code 221, ERROR_JIT_COMPILER_NOT_FOUND)",
    ),
    # open-mmlab/mmdetection#766 (issue description) and multimodallearning/pytorch-mask-rcnn#1 (issue description)
    "cuda-ptx-jit-compilation-failed": (
        "RuntimeError: CUDA error: a PTX JIT compilation failed (launch_kernel at /opt/conda/conda-bld/pytorch_1556653099582/work/aten/src/ATen/native/cuda/Loops.cuh:72)",
        "RuntimeError: cuda runtime error (78) : a PTX JIT compilation failed at /opt/conda/conda-bld/pytorch_1518243271935/work/torch/lib/THC/generic/THCStorage.cu:58",
    ),
    # icl-utk-edu/papi#610 (issue description) and pmodels/yaksa#260 (issue description); the two print the same text
    "nvcc-offline-compilation-deprecated-notice": (
        "nvcc warning : Support for offline compilation for architectures prior to '<compute/sm/lto>_75' will be removed in a future release (Use -Wno-deprecated-gpu-targets to suppress warning).",
    ),
    # vllm-project/vllm#54318 (issue description) and sgl-project/sglang#5871 (issue description)
    "triton-fp8e4nv-unsupported-architecture": (
        "ValueError(\"type fp8e4nv not supported in this architecture. The supported fp8 dtypes are ('fp8e4b15', 'fp8e5')\")",
        "type fp8e4nv not supported in this architecture. The supported fp8 dtypes are ('fp8e4b15', 'fp8e5')\"",
    ),
    # ggml-org/whisper.cpp#1587 (issue description) and TabbyML/tabby#1154 (issue description)
    "cublas-status-not-supported": (
        "cuBLAS error 15 at ggml-cuda.cu:7548: the requested functionality is not supported",
        "cuBLAS error 15 at tabby/crates/llama-cpp-bindings/llama.cpp/ggml-cuda.cu:7398: the requested functionality is not supported",
    ),
    # sgl-project/sglang#9652 (issue description) and openvinotoolkit/nncf#3141 (issue description)
    "torch-cuda-arch-list-unset-notice": (
        "W0826 18:58:16.987000 2637191 torch/utils/cpp_extension.py:2425] TORCH_CUDA_ARCH_LIST is not set, all archs for visible cards are included for compilation. ",
        "/nncf_torch/lib/python3.10/site-packages/torch/utils/cpp_extension.py:1964: UserWarning: TORCH_CUDA_ARCH_LIST is not set, all archs for visible cards are included for compilation. ",
    ),
    # Mined from public threads, round eleven (PyTorch 2024-2026); each comment names the
    # thread
    # fal-ai/fal#478 (pull request description); pytorch/pytorch#128661 (pull request description, Jetson IGX test log)
    "torch-allocator-nvml-assert-out-of-memory": (
        'RuntimeError: NVML_SUCCESS == r INTERNAL ASSERT FAILED at "../c10/cuda/CUDACachingAllocator.cpp":830, please report a bug to PyTorch. ',
        'RuntimeError: NVML_SUCCESS == r INTERNAL ASSERT FAILED at "/opt/pytorch/pytorch/c10/cuda/CUDACachingAllocator.cpp":841, please report a bug to PyTorch.',
    ),
    # jhj0517/Whisper-WebUI#279 (issue description); AbdBarho/stable-diffusion-webui-docker#694 (comment by maifeeulasad, 2024-05-28)
    "torch-cuda-init-error-500-wsl-container": (
        "Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling NumCudaDevices() that might have already set an error? Error 500: named symbol not found",
        "webui-docker-auto-1  | Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling NumCudaDevices() that might have already set an error? Error 500: named symbol not found: str",
    ),
    # idiap/ESLAM#20 (issue title); logicalclocks/hopsworks#1557 (issue description)
    "torch-shared-memory-file-write-failed": (
        "RuntimeError: unable to write to file </torch_31911_952036340_6686>: No space left on device (28)",
        "RuntimeError: unable to write to file </torch_739_144252761_4>: No space left on device (28)",
    ),
    # facebookresearch/maskrcnn-benchmark#103 (issue title); openclimatefix-archives/nowcasting_dataset#158 (comment by JackKelly, 2021-09-25)
    "torch-shared-memory-object-open-failed": (
        "RuntimeError: unable to open shared memory object </torch_29919_1396182366> in read-write mode",
        "RuntimeError: unable to open shared memory object </torch_2197781_1082808688> in read-write mode",
    ),
    # deepbeepmeep/Wan2GP#1263 (issue description); woct0rdho/triton-windows#97 (issue description)
    "torch-inductor-triton-attrsdescriptor-missing": (
        "ImportError: cannot import name 'AttrsDescriptor' from 'triton.compiler.compiler' (G:\\pinokio\\api\\wan.git\\app\\env\\lib\\site-packages\\triton\\compiler\\compiler.py)",
        "ImportError: cannot import name 'AttrsDescriptor' from 'triton.compiler.compiler' (...\\site-packages\\triton\\compiler\\compiler.py)",
    ),
    # Zyphra/Zonos#168 (issue description); meta-pytorch/segment-anything-fast#117 (issue description)
    "torch-inductor-not-enough-sms-notice": (
        "Generating:   0%|                                      | 0/2588 [00:00<?, ?it/s]W0301 14:50:21.667000 3157 .venv/lib/python3.12/site-packages/torch/_inductor/utils.py:1137] [2/0] Not enough SMs to use max_autotune_gemm mode",
        "torch._inductor.utils: [WARNING] not enough SMs to use max_autotune_gemm mode",
    ),
    # ladaapp/lada#51 (issue description); pytorch/pytorch#122057 (issue description)
    "torch-expandable-segments-unsupported-notice": (
        ".\\venv\\Lib\\site-packages\\torch\\nn\\modules\\module.py:1329: UserWarning: expandable_segments not supported on this platform (Triggered internally at C:\\actions-runner\\_work\\pytorch\\pytorch\\pytorch\\c10/cuda/CUDAAllocatorConfig.h:28.)",
        "[W CUDAAllocatorConfig.h:28] Warning: expandable_segments not supported on this platform (function operator())",
    ),
    # meta-pytorch/torchcodec#1143 (issue description); meta-pytorch/torchcodec#1023 (issue description)
    "torchcodec-library-not-loadable": (
        "RuntimeError: Could not load libtorchcodec. Likely causes:",
        "[2025-11-06 15:26:47,069] - [WARNING] - Error processing data item 001: Could not load libtorchcodec. Likely causes:",
    ),
    # Linesight-RL/linesight#50 (issue description); lllyasviel/stable-diffusion-webui-forge#1697 (issue description)
    "torch-load-weights-only-future-warning": (
        "FutureWarning: You are using `torch.load` with `weights_only=False` (the current default value), which uses the default pickle module implicitly. It is possible to construct malicious pickle data which will execute arbitrary code during unpickling (See https://github.com/pytorch/pytorch/blob/main/SECURITY.md#untrusted-models for more details). In a future release, the default value for `weights_only` will be flipped to `True`. This limits the functions that could be executed during unpickling. Arbitrary objects will no longer be allowed to be loaded via this mode unless they are explicitly allowlisted by the user via `torch.serialization.add_safe_globals`. We recommend you start setting `weights_only=True` for any use case where you don't have full control of the loaded file. Please open an issue on GitHub for any issues related to this experimental feature.",
        "C:\\DATA\\SD\\Data\\Packages\\Stable Diffusion WebUI Forge NEW\\modules_forge\\patch_basic.py:38: FutureWarning: You are using `torch.load` with `weights_only=False` (the current default value), which uses the default pickle module implicitly. It is possible to construct malicious pickle data which will execute arbitrary code during unpickling (See https://github.com/pytorch/pytorch/blob/main/SECURITY.md#untrusted-models for more details). In a future release, the default value for `weights_only` will be flipped to `True`. This limits the functions that could be executed during unpickling. Arbitrary objects will no longer be allowed to be loaded via this mode unless they are explicitly allowlisted by the user via `torch.serialization.add_safe_globals`. We recommend you start setting `weights_only=True` for any use case where you don't have full control of the loaded file. Please open an issue on GitHub for any issues related to this experimental feature.",
    ),
    # teamtomo/membrain-seg#120 (issue description); WenjieDu/PyPOTS#520 (issue description)
    "torch-amp-namespace-deprecated-notice": (
        "membrain_seg/segmentation/segment.py:173: FutureWarning: `torch.cuda.amp.autocast(args...)` is deprecated. Please use `torch.amp.autocast('cuda', args...)` instead.",
        "pypots/nn/modules/reformer/local_attention.py:31: FutureWarning: `torch.cuda.amp.autocast(args...)` is deprecated. Please use `torch.amp.autocast('cuda', args...)` instead",
    ),
    # JudeWells/chainsaw#16 (issue description); docling-project/docling-serve#545 (issue description)
    "torch-nnpack-unsupported-hardware-notice": (
        "[W NNPACK.cpp:64] Could not initialize NNPACK! Reason: Unsupported hardware.",
        "[W322 21:06:39.645884768 NNPACK.cpp:56] Could not initialize NNPACK! Reason: Unsupported hardware.",
    ),
    # junjie18/CMT#95 (issue description); QwenLM/Qwen#103 (issue description, the error as the reporter quoted it)
    "flash-attn1-gpu-older-than-turing": (
        "RuntimeError: Expected is_sm8x || is_sm75 to be true, but got false.  (Could this error message be improved?  If so, please report an enhancement request to PyTorch.)",
        "RuntimeError: Expected is_sm90 || is_sm8x || is_sm75 to be true, but got false. (Could this error message be improved? If so, please report an enhancement request to PyTorch.)",
    ),
    # unslothai/unsloth#679 (issue description: the assertion and the line after it)
    "triton-libcuda-so-not-found": (
        "AssertionError: libcuda.so cannot found!",
        "Possible files are located at ['/lib/x86_64-linux-gnu/libcuda.so.1'].Please create a symlink of libcuda.so to any of the file.",
    ),
    # Mined from public threads, round eleven (TensorFlow 2.11+ and Keras 3: notices, optimizer
    # and saving changes, TF Serving, tensorflow-metal); each comment names the thread
    # Entries for the SAMPLES dict; every line is copied verbatim from the thread named above it.
    # tensorflow/tensorflow#61811 (issue description), tensorflow/tensorflow#59779 (issue description)
    "tf-executor-start-aborting-notice": (
        "2023-09-07 17:19:04.634978: I tensorflow/core/common_runtime/executor.cc:1197] [/device:CPU:0] (DEBUG INFO) Executor start aborting (this does not indicate an error and you can ignore this message): INVALID_ARGUMENT: You must feed a value for placeholder tensor 'Placeholder/_0' with dtype string and shape [2]",
        "2023-02-23 16:48:07.354061: I tensorflow/core/common_runtime/executor.cc:1214] [/device:CPU:0] (DEBUG INFO) Executor start aborting (this does not indicate an error and you can ignore this message): INVALID_ARGUMENT: You must feed a value for placeholder tensor 'gradients/split_2_grad/concat/split_2/split_dim' with dtype int32",
    ),
    # tensorflow/tensorflow#61656 (issue title), talmolab/sleap#1282 (a training log in the thread; the line's opening only, it goes on with the op's attribute dump)
    "tf-grappler-predictcost-notice": (
        'W tensorflow/core/grappler/costs/op_level_cost_estimator.cc:689] Error in PredictCost() for the op: op: "Conv2D" attr { key: "T" value { type: DT_FLOAT } } attr { key: "data_format" value { s: "NCHW"',
        '2023-05-31 12:17:45.614700: W tensorflow/core/grappler/costs/op_level_cost_estimator.cc:690] Error in PredictCost() for the op: op: "CropAndResize" attr { key: "T" value { type: DT_FLOAT } } attr { key: "extrapolation_value" value { f: 0 } } attr { key: "method" value { s: "bilinear" } }',
    ),
    # tensorflow/tensorflow#50196 (comment by SuryanarayanaY, 2023-03-30), tensorflow/tensorflow#38260 (issue description)
    "tf-cpu-frequency-unknown-notice": (
        "2023-03-30 13:41:44.060864: W tensorflow/tsl/platform/profile_utils/cpu_utils.cc:128] Failed to get CPU frequency: 0 Hz",
        "tensorflow/core/platform/profile_utils/cpu_utils.cc:106] Failed to find bogomips or clock in /proc/cpuinfo; cannot determine CPU frequency",
    ),
    # tensorflow/tensorflow#61092 (issue description; both lines)
    "keras-m1-legacy-optimizer-fallback": (
        "WARNING:absl:At this time, the v2.11+ optimizer `tf.keras.optimizers.Adam` runs slowly on M1/M2 Macs, please use the legacy Keras optimizer instead, located at `tf.keras.optimizers.legacy.Adam`.",
        "WARNING:absl:There is a known slowdown when using v2.11+ Keras optimizers on M1/M2 Macs. Falling back to the legacy Keras optimizer, i.e., `tf.keras.optimizers.legacy.Adam`.",
    ),
    # rstudio/keras3#1352 (issue description), balajisrinivas/Gender-Detection#6 (issue description; sample only)
    "keras-new-optimizer-decay-removed": (
        "ValueError: decay is deprecated in the new Keras optimizer, pleasecheck the docstring for valid arguments, or use the legacy optimizer, e.g., tf.keras.optimizers.legacy.Adam.",
        "ValueError: decay is deprecated in the new Keras optimizer, please check the docstring for valid arguments, or use the legacy optimizer, e.g., tf.keras.optimizers.legacy.Adam.",
    ),
    # ramsRahim/Federated-Learning#2 (issue description), tensorflow/tensorflow#58831 (issue description, the warning it quotes)
    "keras-optimizer-lr-ignored": (
        "WARNING:absl:`lr` is deprecated in Keras optimizer, please use `learning_rate` or use the legacy optimizer, e.g.,tf.keras.optimizers.legacy.SGD.",
        "WARNING:absl:`lr` is deprecated, please use `learning_rate` instead, or use the legacy optimizer, e.g.,tf.keras.optimizers.legacy.Adagrad.",
    ),
    # philipperemy/keras-tcn#284 (issue description), GantMan/nsfw_model#164 (issue title; sample only)
    "keras3-optimizer-lr-removed": (
        "ValueError: Argument(s) not recognized: {'lr': 0.002}",
        "ValueError: Argument(s) not recognized: {'lr': 8.999999749903509e-07}",
    ),
    # amaiya/ktrain#525 (issue description), mrosol/Nonlincausality#11 (PR description, without backticks)
    "keras3-legacy-optimizers-unsupported": (
        "ImportError: `keras.optimizers.legacy` is not supported in Keras 3. When using `tf.keras`, to continue using a `tf.keras.optimizers.legacy` optimizer, you can install the `tf_keras` package (Keras 2) and set the environment variable `TF_USE_LEGACY_KERAS=True` to configure TensorFlow to use `tf_keras` when accessing `tf.keras`.",
        "ImportError: keras.optimizers.legacy is not supported in Keras 3. When using tf.keras, to continue using a tf.keras.optimizers.legacy optimizer, you can install the tf_keras package (Keras 2) and set the environment variable TF_USE_LEGACY_KERAS=True to configure TensorFlow to use tf_keras when accessing tf.keras.",
    ),
    # tensorflow/tensorflow#64685 (issue description), tensorflow/tensorflow#66381 (issue title)
    "keras3-model-loaded-by-keras2": (
        "ValueError: Unrecognized keyword arguments: ['batch_shape']",
        "Exception encountered: Unrecognized keyword arguments: ['batch_shape']",
    ),
    # keras-team/keras#20750 (issue description), keras-team/keras#20106 (issue description)
    "keras3-removed-layer-argument": (
        "ValueError: Unrecognized keyword arguments passed to GRU: {'time_major': False}",
        "ValueError: Unrecognized keyword arguments passed to LSTM: {'batch_input_shape': (1, 1, 7)}",
    ),
    # pidahbus/deep-image-orientation-angle-detection#11 (issue description), keras-team/keras#19375 (comment by sachinprasadhs, 2024-03-27)
    "keras-hdf5-legacy-save-notice": (
        " loss: 2.0187/home/arthur/.pyenv/versions/3.9.18/lib/python3.9/site-packages/keras/src/engine/training.py:3103: UserWarning: You are saving your model as an HDF5 file via `model.save()`. This file format is considered legacy. We recommend using instead the native Keras format, e.g. `model.save('my_model.keras')`.",
        "WARNING:absl:You are saving your model as an HDF5 file via `model.save()` or `keras.saving.save_model(model)`. This file format is considered legacy. We recommend using instead the native Keras format, e.g. `model.save('my_model.keras')` or `keras.saving.save_model(model, 'my_model.keras')`. ",
    ),
    # tensorflow/serving#1831 (issue title), tensorflow/serving#1419 (issue title)
    "tfserving-no-servable-versions": (
        "W tensorflow_serving/sources/storage_path/file_system_storage_path_source.cc:267] No versions of servable spellcheck found under base path /models/spellcheck",
        "W tensorflow_serving/sources/storage_path/file_system_storage_path_source.cc:267] No versions of servable half_plus_two found under base path /models/half_plus_two",
    ),
    # tensorflow/models#10617 (issue description), tensorflow/tensorflow#53309 (issue description)
    "tensorflow-metal-plugin-unloadable": (
        "tensorflow.python.framework.errors_impl.NotFoundError: dlopen(/Users/user/env/miniforge3/lib/python3.9/site-packages/tensorflow-plugins/libmetal_plugin.dylib, 0x0006): symbol not found in flat namespace '_TF_AllocateOutput'",
        "tensorflow.python.framework.errors_impl.NotFoundError: dlopen(/Users/zhangjing/miniforge3/envs/tf3.7/lib/python3.8/site-packages/tensorflow-plugins/libmetal_plugin.dylib, 6): Symbol not found: _OBJC_CLASS_$_MPSGraphCompilationDescriptor",
    ),
    # tensorflow/tensorflow#50196 (comment by SuryanarayanaY, 2023-03-30; both lines)
    "tensorflow-metal-device-notice": (
        "Metal device set to: Apple M1 Pro",
        "2023-03-30 13:41:44.213540: I tensorflow/core/grappler/optimizers/custom_graph_optimizer_registry.cc:114] Plugin optimizer for device_type GPU is enabled.",
    ),
    # Mined from public threads, round eleven (hosted notebooks and rented clouds); each
    # comment names the thread
    # lenML/Speech-AI-Forge#143 (issue title, the error line the reporter quoted); antgroup/echomimic#148 (issue description); huggingface/autotrain-advanced#727 (issue description, the error the reporter quoted)
    "zerogpu-cuda-initialized-in-main-process": (
        "RuntimeError: CUDA must not be initialized in the main process on Spaces with Stateless GPU environment.",
        "CUDA must not be initialized in the main process on Spaces with Stateless GPU environment. You can look at this Stacktrace to find out which part of your code triggered a CUDA init",
        "RuntimeError: CUDA has been initialized before importing the `spaces` package",
    ),
    # e2b-dev/open-computer-use#28 (issue description); levihsu/OOTDiffusion#205 (issue description)
    "zerogpu-gpu-quota-exceeded": (
        'OBSERVATION: Error executing function: The upstream Gradio app has raised an exception: You have exceeded your GPU quota (60s requested vs. 56s left). <a style="white-space: nowrap;text-underline-offset: 2px;color: var(--body-text-color)" href="https://huggingface.co/join">Create a free account</a> to get more usage quota.',
        "You have exceeded your GPU quota (46s left vs. 60s requested). Sign-up on Hugging Face to get more quotas or retry in 0:09:48.",
    ),
    # HenriquesLab/ZeroCostDL4Mic#239 (issue description, the message quoted); googlecolab/colabtools#2108 (issue description)
    "colab-gpu-usage-limit": (
        "Unable to connect to GPU backend. You are currently unable to connect to a GPU due to Colab's usage limits.",
        "Cannot connect to GPU backend",
        "You cannot currently connect to a GPU due to usage limits in Colab. Learn more",
    ),
    # dvschultz/stylegan2-ada#31 (issue description); tg-bomze/BabyGAN#21 (issue description)
    "colab-tensorflow-1-unsupported": ("ValueError: Tensorflow 1 is unsupported in Colab.",),
    # fastai/course-v3#165 (pull request description)
    "gcp-compute-gpu-quota-exceeded": (
        "     - Quota 'GPUS_ALL_REGIONS' exceeded. Limit: 0.0 globally.",
    ),
    # GoogleCloudPlatform/stable-diffusion-on-gcp#12 (issue description)
    "vertex-ai-gpu-quota-exceeded": (
        '    "message": "The following quota metrics exceed quota limits: aiplatform.googleapis.com/custom_model_training_nvidia_l4_gpus",',
    ),
    # kubernetes/k8s.io#9834 (issue description, the gcloud error block)
    "gcp-zone-gpu-capacity-exhausted": (
        "code: ZONE_RESOURCE_POOL_EXHAUSTED_WITH_DETAILS",
        "    message: A n1-standard-4 VM instance with 1 nvidia-tesla-t4 accelerator(s) is",
    ),
    # dotnet/machinelearning-modelbuilder#2140 (issue description); skypilot-org/skypilot#464 (issue description, the line cut before its quota-request address)
    "azure-gpu-family-quota-exceeded": (
        "The specified subscription has a Standard NC family vCPU quota of 0 and cannot accomodate for at least 1 requested managed compute nodes which maps to 12 vCPUs. Talk to your Subscription Admin or refer to https://docs.microsoft.com/azure/machine-learning/how-to-manage-quotas#request-quota-increases to increase the family quota",
        "W 02-27 08:19:10 cloud_vm_ray_backend.py:520]   Exception Details:      (QuotaExceeded) Operation could not be completed as it results in exceeding approved Standard NCASv3_T4 Family Cores quota. Additional details - Deployment Model: Resource Manager, Location: southcentralus, Current Limit: 0, Current Usage: 0, Additional Required: 4, (Minimum) New Limit Required: 4.",
    ),
    # gabehollombe-aws/jupyter-notebooks#1 (issue description); aws/sagemaker-python-sdk#35 (issue description)
    "sagemaker-gpu-instance-limit-zero": (
        "> ResourceLimitExceeded: An error occurred (ResourceLimitExceeded) when calling the CreateTrainingJob operation: The account-level service limit 'ml.p3.2xlarge for training job usage' is 0 Instances, with current utilization of 0 Instances and a request delta of 1 Instances. Please contact AWS support to request an increase for this limit.",
        "E           ResourceLimitExceeded: An error occurred (ResourceLimitExceeded) when calling the CreateTrainingJob operation: The account-level service limit for training-job/ml.p2.xlarge is 0 Instances, with current utilization of 0 Instances and a request delta of 2 Instances. Please contact AWS support to request an increase for this limit.",
    ),
    # aws/amazon-sagemaker-examples#1001 (issue description, the error quoted)
    "sagemaker-instance-type-not-in-region": (
        "An error occurred (ResourceLimitExceeded) when calling the CreateTrainingJob operation: The requested resource training-job/ml.p2.xlarge is not available in this region",
    ),
    # DIAGNijmegen/rse-grand-challenge#2631 (issue description)
    "sagemaker-capacity-error": (
        'FailureReason: "CapacityError: Unable to provision requested ML compute capacity. Please retry using a different ML instance type."',
    ),
    # iterative/cml#814 (issue description)
    "ec2-insufficient-gpu-instance-capacity": (
        "We currently do not have sufficient g4dn.xlarge capacity in the Availability Zone you requested (eu-west-1b). ",
    ),
    # Mined from public threads, round twelve (NVIDIA inference servers and their engines);
    # each comment names the thread
    # triton-inference-server/server#6195 (issue description, the status quoted inline); triton-inference-server/server#5681 (issue description, quoted)
    "triton-python-backend-shm-too-small": (
        "UNAVAILABLE: Internal: Unable to initialize shared memory key 'triton_python_backend_shm_region_3' to requested size (67108864 bytes). If you are running Triton inside docker, use '--shm-size' flag to control the shared memory region size. Each Python backend model instance requires at least 64MBs of shared memory. Error: No space left on device ",
        "> tritonclient.utils.InferenceServerException: Failed to increase the shared memory pool size for key 'triton_python_backend_shm_region_2' to 67108864 bytes. If you are running Triton inside docker, use '--shm-size' flag to control the shared memory region size. Error: No space left on device",
    ),
    # triton-inference-server/server#6708 (issue description); triton-inference-server/server#7022 (issue description, tritonserver output)
    "triton-backend-library-not-found": (
        "UNAVAILABLE: Invalid argument: unable to find 'libtriton_pytorch.so' ",
        "E0322 05:27:28.711963 70 model_lifecycle.cc:638] failed to load 'densenet_onnx' version 1: Invalid argument: unable to find backend library for backend 'onnxruntime', try specifying runtime on the model configuration.",
    ),
    # triton-inference-server/server#2095 (comment by ishantbansal, 2020-10-06); triton-inference-server/server#7657 (issue description, the message quoted inline)
    "triton-kind-gpu-no-gpus-available": (
        "instance group resnet_0 of model resnet has kind KIND_GPU but no GPUs are available",
        "`peoplenet has kind KIND_GPU but no GPUs are available`",
    ),
    # fauxpilot/fauxpilot#45 (issue description, compose log); triton-inference-server/server#7022 (issue description, tritonserver output)
    "triton-pinned-memory-pool-unavailable": (
        "fauxpilot-triton-1         | W0907 17:13:12.624284 88 pinned_memory_manager.cc:236] Unable to allocate pinned system memory, pinned memory pool will not be available: no CUDA-capable device is detected",
        "W0322 05:27:28.710276 70 pinned_memory_manager.cc:271] Unable to allocate pinned system memory, pinned memory pool will not be available: CUDA driver version is insufficient for CUDA runtime version",
    ),
    # NVIDIA/TensorRT-LLM#1625 (issue description); NVIDIA/TensorRT-LLM#1498 (issue description, quoted server log)
    "cuda-peer-access-unsupported": (
        "[TensorRT-LLM][ERROR] [TensorRT-LLM][ERROR] CUDA runtime error in error: peer access is not supported between these two devices",
        "> E0425 10:43:31.433641 841 backend_model.cc:691] ERROR: Failed to create instance: unexpected error when creating modelInstanceState: [TensorRT-LLM][ERROR] CUDA runtime error in cudaIpcOpenMemHandle( reinterpret_cast<void**>(&foreignBuffer), handles[nodeId], cudaIpcMemLazyEnablePeerAccess): peer access is not supported between these two devices (/app/TensorRT-LLM/TensorRT-LLM/cpp/tensorrt_llm/runtime/ipcUtils.cpp:90)",
    ),
    # gpustack/gpustack#3831 (issue description); sgl-project/sglang#4330 (issue description)
    "sglang-not-enough-memory-for-kv-cache": (
        "RuntimeError: Not enough memory. Please try to increase --mem-fraction-static. Current value: self.server_args.mem_fraction_static=0.2",
        "RuntimeError: Not enough memory. Please try to increase --mem-fraction-static.",
    ),
    # vllm-project/vllm#4770 (comment by AllenDou, 2024-05-13, CI log); vllm-project/vllm#15340 (issue description, worker log)
    "custom-allreduce-disabled-no-p2p-notice": (
        "(eager_allreduce pid=3040) WARNING 05-13 08:48:35 custom_all_reduce.py:166] Custom allreduce is disabled because your platform lacks GPU P2P capability or P2P test failed. To silence this warning, specify disable_custom_all_reduce=True explicitly.",
        "(VllmWorkerProcess pid=281) WARNING 03-22 18:40:47 [custom_all_reduce.py:137] Custom allreduce is disabled because it's not supported on more than two PCIe-only GPUs. To silence this warning, specify disable_custom_all_reduce=True explicitly.",
    ),
    # NVIDIA/TensorRT-LLM#1034 (issue description, server log); InternLM/lmdeploy#2076 (issue description)
    "peer-access-not-available-notice": (
        "[TensorRT-LLM][WARNING] Device 2 peer access Device 5 is not available.",
        "[TM][WARNING] Device 0 peer access Device 1 is not available.",
    ),
    # InternLM/lmdeploy#2069 (comment by blackblue9, 2024-07-18, the warning quoted in the comment)
    "lmdeploy-turbomind-not-installed": (
        "lmdeploy - WARNING - Fallback to pytorch engine because turbomind engine is not installed correctly. If you insist to use turbomind engine, you may need to reinstall lmdeploy from pypi or build from source and try again.",
    ),
    # NVIDIA/TensorRT-LLM#320 (issue description); Tlntin/Qwen-TensorRT-LLM#15 (issue title)
    "trtllm-unsupported-architecture": (
        "[TensorRT-LLM][ERROR] Assertion failed: Unsupported architecture (/home/build/TensorRT_LLM/TensorRT-LLM-master/cpp/tensorrt_llm/kernels/contextFusedMultiHeadAttention/fmhaRunner.cpp:87)",
        "RuntimeError: [TensorRT-LLM][ERROR] Assertion failed: Unsupported Arch (/opt/tritonserver/TensorRT-LLM/cpp/tensorrt_llm/kernels/cutlass_kernels/cutlass_preprocessors.cpp:147)",
    ),
    # NVIDIA/TensorRT-LLM#574 (issue description, first physical line as posted); NVIDIA/TensorRT-LLM#122 (issue thread, log quoted in a comment by Amagong)
    "trtllm-engine-tensor-names-mismatch": (
        "[12/05/2023-23:50:35] [TRT-LLM] [E] The following expected tensors are not found: {'past_key_value_16', 'present_key_value_31', 'present_key_value_10', 'present_key_value_5', 'past_key_value_24', 'present_key_value_14', 'present_key_valu",
        "[11/01/2023-05:10:59] [TRT-LLM] [E] Those tensors in engine are not expected: {'last_token_ids'}",
    ),
    # NVIDIA/ChatRTX#113 (issue description, last traceback line)
    "pynvml-12-no-version-attribute": (
        "AttributeError: module 'pynvml' has no attribute '__version__'",
    ),
    # sgl-project/sglang#9561 (issue description); sgl-project/sglang#12827 (issue description)
    "sglang-model-import-error-ignored-notice": (
        "[2025-08-24 06:25:37 TP0] Ignore import error when loading sglang.srt.models.glm4v_moe: No module named 'transformers.models.glm4v_moe'",
        "[2025-11-06T02:08:27.278Z] [2025-11-06 02:08:27] Ignore import error when loading sglang.srt.models.glm4v_moe: No module named 'transformers.models.glm4v_moe'",
    ),
    # Mined from public threads, round twelve (scientific and HPC GPU libraries); each comment
    # names the thread
    # fixstars/libSGM#8 (issue description); dhernandez0/stixels#4 (issue description, the program's output)
    "cuda-invalid-device-function-bare": (
        "libSGM/src/check_consistency.cu : 52 invalid device function",
        "Error: invalid device function 8",
        # smallcorgi/Faster-RCNN_TF#15 (the roi_pooling op's check macro)
        "cudaCheckError() failed : invalid device function",
        # akrizhevsky/cuda-convnet2#15 (helper_cuda.h's getLastCudaError, wrapped before "execution")
        "execution failed : (8) invalid device function .",
        # GOMC-WSU/GOMC#168 (the GPUassert macro, the file after the message)
        "GPUassert: invalid device function /home4/jpotoff/GOMC/GOMC/src/GPU/CalculateEwaldCUDAKernel.cu 80",
    ),
    # UCI-CARL/CARLsim6#15 (issue description); lumark/PWP3D#4 (issue description, the program's output)
    "cuda-invalid-device-symbol": (
        'CUDA error at carlsim/kernel/src/gpu_module/snn_gpu_module.cu:328 code=13(cudaErrorInvalidSymbol) "cudaMemcpyToSymbol(loadBufferCount, &bufferCnt, sizeof(int), 0, cudaMemcpyHostToDevice)" ',
        "E:/Github/PWP3D/PerseusLib/CUDA/CUDAConvolution.cu(100) : cudaSafeCall() Runtime API error : invalid device symbol.",
    ),
    # kokkos/kokkos#1944 (issue description); kokkos/kokkos#6092 (issue description)
    "kokkos-cuda-arch-mismatch": (
        "Kokkos::Cuda::initialize ERROR: running kernels compiled for compute capability 0.0 (< 5.0) on device with compute capability 5.0 (>=5.0), this would give incorrect results!",
        "Kokkos::Cuda::initialize ERROR: likely mismatch of architecture",
    ),
    # pjreddie/darknet#304 (issue description); AlexeyAB/darknet#3281 (issue description)
    "darknet-cuda-out-of-memory": (
        "    0 CUDA Error: out of memory",
        " Try to set subdivisions=64 in your cfg-file.",
    ),
    # openmm/openmm#3781 (issue description, the error as the reporter quotes it); openmm/openmm#3518 (issue description, TestCudaEwald output)
    "openmm-no-compatible-cuda-device": (
        "OpenMMException: No compatible CUDA device is available",
        "exception: No compatible CUDA device is available",
    ),
    # inducer/pycuda#250 (issue description); inducer/pycuda#333 (issue description, the error as the reporter quotes it)
    "pycuda-no-active-context": (
        "pycuda._driver.LogicError: cuMemGetInfo failed: invalid device context",
        "pycuda._driver.LogicError: explicit_context_dependent failed: invalid device context - no currently active context?",
    ),
    # open-mmlab/OpenPCDet#1386 (issue title and traceback); zhangyp15/MonoFlex#52 (issue title)
    "numba-no-supported-compute-capabilities": (
        "numba.cuda.cudadrv.error.NvvmSupportError: No supported GPU compute capabilities found. Please check your cudatoolkit version matches your CUDA version.",
        "E           numba.cuda.cudadrv.error.NvvmSupportError: No supported GPU compute capabilities found. Please check your cudatoolkit version matches your CUDA version.",
    ),
    # open-mmlab/OpenPCDet#1386 (issue description, the warning before the traceback)
    "numba-cuda-toolkit-below-minimum": (
        "/home/xhj/openpcdet_env/lib/python3.8/site-packages/numba/cuda/cudadrv/nvvm.py:400: UserWarning: CUDA Toolkit 10.1 is unsupported by Numba - 11.0 is the minimum required version.",
    ),
    # Maghoumi/pytorch-softdtw-cuda#21 (issue description); thepetabyteproject/your#106 (issue description)
    "numba-low-occupancy-notice": (
        "/net/papilio/storage2/bowenz/anaconda3/envs/zbw/lib/python3.9/site-packages/numba/cuda/compiler.py:726: NumbaPerformanceWarning: Grid size (4) < 2 * SM count (164) will likely result in GPU under utilization due to low occupancy.",
        "/numba/cuda/dispatcher.py:488: NumbaPerformanceWarning: Grid size 64 will likely result in GPU under-utilization due to low occupancy.",
    ),
    # lcdm-uiuc/PyIF#6 (issue description)
    "numba-host-array-copy-notice": (
        "NumbaPerformanceWarning: Host array used in CUDA kernel will incur copy overhead to/from device.",
    ),
    # openmm/openmm#4370 (issue description); essex-lab/grand#7 (issue description)
    "openmm-cuda-platform-not-registered": (
        'openmm.OpenMMException: There is no registered Platform called "CUDA"',
        'Exception: There is no registered Platform called "CUDA"',
    ),
    # Mined from public threads, round thirteen (host resources besides GPU memory); each
    # comment names the thread
    # gemcollector/RL-ViGen#17 (issue description); mittagessen/kraken#266 (the issue title, the error as the reporter quotes it)
    "torch-dataloader-worker-killed-sigkill": (
        "RuntimeError: DataLoader worker (pid 22358) is killed by signal: Killed.",
        "RuntimeError: DataLoader worker (pid 22048) is killed by signal: Killed.",
    ),
    # AkariAsai/self-rag#83 (issue description); OceannTwT/ra-isf#11 (the issue title, the error as the reporter quotes it)
    "torch-elastic-worker-sigkill": (
        "torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: -9) local_rank: 1 (pid: 14447) of binary:",
        "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -9) local_rank: 0 (pid: 5343) of binary: /root/miniconda3/bin/python",
    ),
    # easydiffusion/easydiffusion#289 (issue description); lllyasviel/Fooocus#237 (issue description)
    "torch-cpu-allocator-out-of-memory": (
        "RuntimeError: [enforce fail at C:\\cb\\pytorch_1000000000000\\work\\c10\\core\\impl\\alloc_cpu.cpp:81] data. DefaultCPUAllocator: not enough memory: you tried to allocate 151781376 bytes.",
        "RuntimeError: [enforce fail at ..\\c10\\core\\impl\\alloc_cpu.cpp:72] data. DefaultCPUAllocator: not enough memory: you tried to allocate 26214400 bytes.",
    ),
    # rusty1s/himp-gnn#7 (issue description, the error as the reporter quotes it)
    "torch-dataloader-ancdata-fd-limit": ("RuntimeError: received 0 items of ancdata",),
    # nathanweeks/exonerate#31 (issue description, the error as the reporter quotes it); hafs-community/HAFS#101 (issue description, the first failure log)
    "slurm-cgroup-oom-kill": (
        "slurmstepd: error: Detected 12 oom-kill event(s) in StepId=16198179.batch. Some of your processes may have been killed by the cgroup out-of-memory handler.",
        "srun: error: Orion-01-01: task 4: Out Of Memory",
    ),
    # equinor/ert#7797 (a maintainer's comment, dmesg after the reproduction); 0jc1/py-autovod#7 (issue description, the kernel log)
    "linux-kernel-oom-killer": (
        "2024-04-29T14:55:41,679700+02:00 Out of memory: Killed process 1440763 (perl) total-vm:87033376kB, anon-rss:60356340kB, file-rss:0kB, shmem-rss:0kB, UID:21417 pgtables:169956kB oom_score_adj:0",
        "[Sun Mar 30 08:24:00 2025] Out of memory: Killed process 7899 (python) total-vm:26,184,840kB, anon-rss:153,700,88kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:38964kB oom_score_adj:0",
    ),
    # kingoflolz/mesh-transformer-jax#120 (the issue title, Colab's message); borisdayma/dalle-mini#207 (issue description, Colab's message as quoted)
    "colab-session-ram-exhausted": (
        "Your session crashed after using all available RAM",
        "Your session crashed after using all available RAM. As a Colab Pro user, you have higher memory than non-subscribed users..",
    ),
    # huggingface/lerobot#59 (issue description); easydiffusion/easydiffusion#1649 (issue description, pip's output)
    "errno-28-no-space-left": (
        "[Errno 28] No space left on device",
        "     ━━━━━━━━━━━━━━━━╺━━━━━━━━━━━━━━━━━━━━━━━ 70.3/173.2 MB 11.8 MB/s eta 0:00:09ERROR: Could not install packages due to an OSError: [Errno 28] No space left on device",
    ),
    # willsheffler/worms#2 (issue description)
    "openblas-thread-create-failed": (
        "OpenBLAS blas_thread_init: pthread_create: Resource temporarily unavailable",
        "OpenBLAS blas_thread_init: RLIMIT_NPROC 512 current, 1031280 max",
    ),
    # FarjaalAhmad/django_bgRemoverML#25 (issue description, the traceback); open-mmlab/OpenPCDet#329 (issue description, the error in testing)
    "python-thread-start-failed": (
        "RuntimeError: can't start new thread",
        " libgomp: Thread creation failed: Resource temporarily unavailable",
    ),
    # openucx/ucx#8229 (the issue title, UCX's error); NVIDIA/cudf-spark#7632 (pull request description, the RDMA test's error)
    "rdma-verbs-memlock-enomem": (
        "ibv_create_cq(cqe=4096) failed: Cannot allocate memory",
        "ERROR mlx5_0: ibv_create_cq() failed: Cannot allocate memory.",
    ),
    # NVIDIA/nccl-tests#206 (the issue title, NCCL's warning); horovod/horovod#98 (a comment by dashesy, 2018-05-15)
    "nccl-ibv-call-failed": (
        "misc/ibvwrap.cc:278 NCCL WARN Call to ibv_reg_mr_iova2 failed with error Cannot allocate memory",
        "machine [0] misc/ibvwrap.cu:269 WARN Call to ibv_create_qp failed",
    ),
    # InftyAI/llmaz#238 (issue description); ray-project/ray#11951 (a comment by krfricke, 2020-11-11)
    "ray-object-store-tmp-fallback": (
        "2025-01-14 03:08:29,081\tWARNING services.py:2022 -- WARNING: The object store is using /tmp instead of /dev/shm because /dev/shm has only 67108864 bytes available. This will harm performance! You may be able to free up space by deleting files in /dev/shm. If you are inside a Docker container, you can increase /dev/shm size by passing '--shm-size=5.04gb' to 'docker run' (or add it to the run_options list in a Ray cluster config). Make sure to set this to more than 30% of available RAM.",
        "2020-11-11 11:29:31,386\tWARNING services.py:1625 -- WARNING: The object store is using /tmp instead of /dev/shm because /dev/shm has only 477999988736 bytes available. This may slow down performance! You may be able to free up space by deleting files in /dev/shm or terminating any running plasma_store_server processes. If you are inside a Docker container, you may need to pass an argument with the flag '--shm-size' to 'docker run'.",
    ),
    # Mined from public threads, round thirteen (installing and keeping the NVIDIA driver on
    # Linux); each comment names the thread
    # flatcar/Flatcar#1283 (comment by tearfulDalvik, 2023-12-11, dmesg); MrMEEE/bumblebee-Old-and-abbandoned#583 (issue description, dmesg); siderolabs/extensions#227 (comment by djeebus, 2023-09-14, Talos kernel log)
    "nvrm-gpu-not-supported-by-driver-release": (
        "                NVRM: installed in this system is not supported by the",
        "[  652.483305] NVRM: in this system is not supported by the 280.13 NVIDIA Linux",
        "kern: warning: [2023-09-14T03:08:37.411164757Z]: NVRM: The NVIDIA GPU 0000:00:10.0 (PCI ID: 10de:1b38)\\x0aNVRM: installed in this system is not supported by the\\x0aNVRM: NVIDIA 535.54.03 driver release.\\x0aNVRM: Please see 'Appendix A - Supported NVIDIA GPU Products'\\x0aNVRM: in this release's README, available on the operating system\\x0aNVRM: specific graphics driver download page at www.nvidia.com.",
    ),
    # NVIDIA/gpu-operator#492 (comment by zeddit, 2023-02-24, dmesg); system76/firmware-open#66 (comment by jamalex, dmesg)
    "nvrm-pci-bar-invalid": (
        "[83260.063553] NVRM: This PCI I/O region assigned to your NVIDIA device is invalid:",
        "               NVRM: BAR0 is 0M @ 0x0 (PCI:0000:06:00.0)",
    ),
    # fgci-org/ansible-role-cuda#20 (pull request description); SpaceinvaderOne/nvidia_powersave#1 (issue description, quoted inline)
    "nvrm-persistence-mode-deprecated-notice": (
        "NVRM: Persistence mode is deprecated and will be removed in a future release. Please use nvidia-persistenced instead.",
        "`NVRM: Persistence mode is deprecated and will be removed in a future release. Please use nvidia-persistenced instead`",
    ),
    # facebookresearch/deepmask#49 (issue description)
    "modprobe-nvidia-required-key-not-available": (
        "ERROR: could not insert 'nvidia_367_uvm': required key not available",
    ),
    # Bumblebee-Project/Bumblebee#810 (comment by arcivanov, 2016-11-08, installer output); NVIDIA/nvtrust#31 (comment by seungsoo-lee, 2024-01-02, nvidia-installer.log)
    "nvidia-installer-kernel-module-load-failed": (
        "ERROR: Unable to load the kernel module 'nvidia.ko'.  This happens most frequently when this kernel module was built against the wrong or improperly configured kernel sources, with a version of gcc that differs from the one used to build the target kernel, or if a driver such as rivafb, nvidiafb, or nouveau is present and prevents the NVIDIA kernel module from obtaining ownership of the NVIDIA graphics device(s), or no NVIDIA GPU installed in this system is supported by this NVIDIA Linux graphics driver release.",
        "ERROR: Unable to load the kernel module 'nvidia.ko'.",
    ),
    # pop-os/shop#121 (issue description, the AppCenter error as quoted)
    "dpkg-nvidia-file-overwrite-conflict": (
        "Error while installing package: trying to overwrite '/lib/udev/rules.d/71-nvidia.rules', which is also in package nvidia-kernel-common-418 418.56-0pop0~1553121653~18.10~82fab6d",
    ),
    # aws-samples/aws-deep-learning-ami-ubuntu-dcv-desktop#18 (issue description); rajeshroy402/DeepStream-dGPU-Installation#6 (issue description); elementary/os#613 (issue description)
    "apt-nvidia-driver-unmet-dependencies": (
        "nvidia-dkms-530 : Depends: nvidia-kernel-common-530 (>= 530.41.03) but 530.30.02-0ubuntu1 is to be installed",
        " nvidia-dkms-510 : Depends: nvidia-kernel-common-510 (>= 510.73.05) but 510.47.03-0ubuntu1 is to be installed",
        "  linux-modules-nvidia-470-5.11.0-44-generic: Depends: nvidia-kernel-common-470 (<= 470.86-1) but 470.103.01-0ubuntu0.20.04.1 is to be installed",
    ),
    # rocky-linux/rockylinux.org#201 (issue description, two dnf outputs)
    "dnf-nvidia-modular-filtering": (
        "  - package nvidia-settings-3:580.65.06-1.el10.x86_64 from cuda-rhel10-x86_64 is filtered out by modular filtering",
        "All matches were filtered out by modular filtering for argument: cuda-drivers",
    ),
    # iterative/terraform-provider-iterative#494 (pull request description, console output)
    "ubuntu-drivers-aplay-missing-notice": ("ERROR:root:could not open aplay -l",),
    # zen-kernel/zen-kernel#305 (issue description, pacman hook output); cilynx/rtl88x2bu#231 (issue description)
    "dkms-kernel-headers-not-found": (
        "==> ERROR: Missing 6.2.1-zen1-1-zen kernel headers for module nvidia/525.89.02.",
        "Error! Your kernel headers for kernel 5.17.0-1020-oem cannot be found.",
    ),
    # Mined from public threads, round fourteen (Apple Silicon and macOS); each comment names
    # the thread
    # pytorch/pytorch#20030 (issue description, the ImportError line) and fbrundu/pymrmr#98 (issue description)
    "macos-openmp-runtime-not-loaded": (
        "ImportError: dlopen(/Users/kaspersapala/.local/share/virtualenvs/new-pollution-forecast-BSetKF9E/lib/python3.7/site-packages/torch/_C.cpython-37m-darwin.so, 9): Library not loaded: /usr/local/opt/libomp/lib/libomp.dylib",
        "ImportError: dlopen(/usr/local/lib/python3.6/site-packages/pymrmr.cpython-36m-darwin.so, 2): Library not loaded: /usr/local/opt/libiomp/lib/libiomp5.dylib",
    ),
    # oceanprotocol/pdr-backend#1339 (issue description) and dmlc/xgboost#5586 (comment by ankane, 2020-04-25)
    "xgboost-native-library-not-loaded": (
        "XGBoost Library (libxgboost.dylib) could not be loaded.",
        "xgboost.core.XGBoostError: XGBoost Library (libxgboost.dylib) could not be loaded.",
    ),
    # ml-explore/mlx#479 (pull request description, awni) and jjang-ai/vmlx#58 (issue description)
    "metal-command-buffer-out-of-memory": (
        "libc++abi: terminating due to uncaught exception of type std::runtime_error: [METAL] Command buffer execution failed: Insufficient Memory (00000008:kIOGPUCommandBufferCallbackErrorOutOfMemory)",
        "[error] libc++abi: terminating due to uncaught exception of type std::runtime_error: [METAL] Command buffer execution failed: Insufficient Memory",
    ),
    # AUTOMATIC1111/stable-diffusion-webui#5796 (pull request description, brkirch) and pytorch/pytorch#84039 (issue description)
    "mps-ndarray-size-limit": (
        "  0%|                                                    | 0/20 [00:00<?, ?it/s]/AppleInternal/Library/BuildRoots/5b8a32f9-5db2-11ed-8aeb-7ef33c48bc85/Library/Caches/com.apple.xbs/Sources/MetalPerformanceShaders/MPSCore/Types/MPSNDArray.mm:724: failed assertion `[MPSNDArray initWithDevice:descriptor:] Error: total bytes of NDArray > 2**32'",
        "AppleInternal/Library/BuildRoots/20d6c351-ee94-11ec-bcaf-7247572f23b4/Library/Caches/com.apple.xbs/Sources/MetalPerformanceShaders/MPSCore/Types/MPSNDArray.mm:705: failed assertion '[MPSNDArray initWithDevice:descriptor:] Error: product of dimension sizes > 2**31 '",
    ),
    # faylward/viralrecall#16 (issue description) and facebookresearch/fairchem#549 (issue description)
    "intel-mkl-cpu-requirements": (
        '"Intel MKL FATAL ERROR: This system does not meet the minimum requirements for use of the Intel(R) Math Kernel Library.',
        "Intel MKL FATAL ERROR: This system does not meet the minimum requirements for use of the Intel(R) Math Kernel Library.",
    ),
    # FRBs/sigpyproc3#3 (issue description) and karpathy/llama2.c#49 (issue description)
    "apple-clang-fopenmp-unsupported": (
        "clang: error: unsupported option '-fopenmp'",
        "    clang: error: unsupported option '-fopenmp'",
    ),
    # jts/nanopolish#16 (issue description) and clang-omp/clang#38 (issue description)
    "openmp-header-not-found": (
        "src/nanopolish_consensus.cpp:20:10: fatal error: 'omp.h' file not found",
        "hello.c:1:10: fatal error: 'omp.h' file not found",
    ),
    # apple/coremltools#2465 (issue description, Linux) and apple/coremltools#2220 (issue description)
    "coremltools-native-module-missing": (
        "Failed to load _MLModelProxy: No module named 'coremltools.libcoremlpython'",
        "Error:Failed to load _MLModelProxy: No module named 'coremltools.libcoremlpython",
    ),
    # pytorch/pytorch#141864 (issue description) and pytorch/pytorch#78168 (comment by krsh888, 2023-04-16)
    "torch-mps-bfloat16-unsupported": (
        "   TypeError: BFloat16 is not supported on MPS",
        "TypeError: Trying to convert BFloat16 to the MPS backend but it does not have support for that dtype.",
    ),
    # scottviteri/MarkovianTraining#9 (issue description)
    "torch-mps-int64-op-macos": ("MPS does not support cumsum op with int64 input",),
    # pytorch/pytorch#80278 (issue description) and roboflow/rf-detr#29 (issue description)
    "torch-mps-cpu-fallback-notice": (
        "/Users/marco/miniforge3/envs/torch/lib/python3.9/site-packages/torch/_tensor_str.py:103: UserWarning: The operator 'aten::bitwise_and.Tensor_out' is not currently supported on the MPS backend and will fall back to run on the CPU. This may have performance implications. (Triggered internally at /Users/runner/work/pytorch/pytorch/pytorch/aten/src/ATen/mps/MPSFallback.mm:11.)",
        "UserWarning: The operator 'aten::_upsample_bilinear2d_aa.out' is not currently supported on the MPS backend and will fall back to run on the CPU. This may have performance implications. (Triggered internally at /Users/runner/work/_temp/anaconda/conda-bld/pytorch_1729646995093/work/aten/src/ATen/mps/MPSFallback.mm:13.)",
    ),
    # jax-ml/jax#27062 (issue description)
    "jax-metal-incompatible-jaxlib": (
        "XlaRuntimeError: UNIMPLEMENTED: default_memory_space is not supported.",
    ),
    # jax-ml/jax#21383 (comment by drbenvincent, 2024-05-23) and jax-ml/jax#34109 (issue description)
    "jax-metal-experimental-notice": (
        "Platform 'METAL' is experimental and not all JAX functionality may be correctly supported!",
        "WARNING:2025-12-26 09:55:28,117:jax._src.xla_bridge:881: Platform 'METAL' is experimental and not all JAX functionality may be correctly supported!",
    ),
    # Mined from public threads, round fourteen (ONNX Runtime and TensorRT); each comment names
    # the thread
    # wang-xinyu/tensorrtx#1205, issue description (the program's output); replicate/cog-triton#51, issue description
    "tensorrt-builder-resource-library-missing": (
        "[01/11/2023-16:33:50] [E] [TRT] 6: [libLoader.h::DynamicLibrary::50] Error Code 6: Internal Error (Unable to load library: libnvinfer_builder_resource.so.8.4.1)",
        "[07/25/2024-13:52:57] [TRT] [E] IBuilder::buildSerializedNetwork: Error Code 6: API Usage Error (Unable to load library: libnvinfer_builder_resource_win.so.10.2.0: libnvinfer_builder_resource_win.so.10.2.0: cannot open shared object file: No such file or directory)",
    ),
    # NVIDIA/TensorRT#3948, issue description; triple-mu/YOLOv8-TensorRT#226, issue title
    "tensorrt-python-api-removed": (
        "AttributeError: 'tensorrt.tensorrt.ICudaEngine' object has no attribute 'binding_is_input'",
        "AttributeError: 'tensorrt_bindings.tensorrt.Builder' object has no attribute 'build_engine'",
    ),
    # NVIDIA/TensorRT#3164, issue description; jkjung-avt/tensorrt_demos#437, issue description (onnx2trt output)
    "tensorrt-plugin-creator-not-found": (
        " [E] [TRT] 3: getPluginCreator could not find plugin: SequenceConstruct version: 1",
        "ERROR] INVALID_ARGUMENT: getPluginCreator could not find plugin InstanceNormalization_TRT version 1",
    ),
    # NVIDIA/TensorRT#1766, issue title (the builder's error line)
    "tensorrt-no-implementation-for-node": (
        "[optimizer.cpp::computeCosts::2011] Error Code 10: Internal Error (Could not find any implementation for node ArgMax_260.)",
    ),
    # onnx/onnx-tensorrt#518, issue description (onnx2trt output)
    "tensorrt-no-optimization-profile": (
        "[2020-08-20 11:03:50   ERROR] Network has dynamic or shape inputs, but no optimization profile has been defined.",
    ),
    # sdbds/TRELLIS-for-windows#3, issue description (the same line appears in sdbds/TRELLIS-for-windows#34)
    "ort-tensorrt-provider-libraries-missing": (
        "EP Error D:\\a\\_work\\1\\s\\onnxruntime\\python\\onnxruntime_pybind_state.cc:507 onnxruntime::python::RegisterTensorRTPluginsAsCustomOps Please install TensorRT libraries as mentioned in the GPU requirements page, make sure they're in the PATH or LD_LIBRARY_PATH, and that your GPU is supported.",
    ),
    # intel/onnxruntime#865, issue title (the warning the reporter quotes)
    "ort-provider-not-in-installed-build": (
        "Specified provider 'OpenVINOExecutionProvider' is not in available provider names.Available providers: 'AzureExecutionProvider, CPUExecutionProvider'",
    ),
    # sithu31296/semantic-segmentation#56, issue description; microsoft/onnxruntime-inference-examples#111, pull request description
    "ort-providers-argument-required": (
        "ValueError: This ORT build has ['TensorrtExecutionProvider', 'CUDAExecutionProvider', 'CPUExecutionProvider'] enabled. Since ORT 1.9, you are required to explicitly set the providers parameter when instantiating InferenceSession. For example, onnxruntime.InferenceSession(..., providers=['TensorrtExecutionProvider', 'CUDAExecutionProvider', 'CPUExecutionProvider'], ...)",
        "ValueError: This ORT build has ['CUDAExecutionProvider', 'DnnlExecutionProvider', 'CPUExecutionProvider'] enabled. Since ORT 1.9, you are required to explicitly set the providers parameter when instantiating InferenceSession. For example, onnxruntime.InferenceSession(..., providers=['CUDAExecutionProvider', 'DnnlExecutionProvider', 'CPUExecutionProvider'], ...)",
    ),
    # onnx/sklearn-onnx#532, issue description (Windows 7, the warning wrapped over two lines); microsoft/onnxruntime-genai#240, issue description (Windows 11)
    "ort-unsupported-windows-version": (
        "onnxruntime_validation.py:27: UserWarning: Unsupported Windows version (7). ONNX",
        "UserWarning: Unsupported Windows version (11). ONNX Runtime supports Windows 10 and above, only.",
    ),
    # onnxsim/onnxsim#289, issue description; microsoft/onnxruntime-training-examples#166, issue description
    "ort-opset-newer-than-runtime": (
        "onnxruntime.capi.onnxruntime_pybind11_state.InvalidArgument: [ONNXRuntimeError] : 2 : INVALID_ARGUMENT : Failed to load model with error: /onnxruntime_src/onnxruntime/core/graph/model_load_utils.h:47 void onnxruntime::model_load_utils::ValidateOpsetForDomain(const std::unordered_map<std::basic_string<char>, int>&, const onnxruntime::logging::Logger&, bool, const string&, int) ONNX Runtime only *guarantees* support for models stamped with official released onnx opset versions. Opset 16 is under development and support for this is limited. The operator schemas and or other functionality may change before next ONNX release and in this case ONNX Runtime will not guarantee backward compatibility. Current official support for domain ai.onnx is till opset 15.",
        "RuntimeError: /onnxruntime_src/orttraining/orttraining/training_api/optimizer.cc:273 void onnxruntime::training::api::Optimizer::Initialize(const onnxruntime::training::api::ModelIdentifiers&, const std::vector<std::shared_ptr<onnxruntime::IExecutionProvider> >&, gsl::span<OrtCustomOpDomain* const>) [ONNXRuntimeError] : 1 : FAIL : Load model from data/optimizer_model.onnx failed:/onnxruntime_src/onnxruntime/core/graph/model_load_utils.h:46 void onnxruntime::model_load_utils::ValidateOpsetForDomain(const std::unordered_map<std::basic_string<char>, int>&, const onnxruntime::logging::Logger&, bool, const string&, int) ONNX Runtime only *guarantees* support for models stamped with official released onnx opset versions. Opset 20 is under development and support for this is limited. The operator schemas and or other functionality may change before next ONNX release and in this case ONNX Runtime will not guarantee backward compatibility. Current official support for domain ai.onnx is till opset 19",
    ),
    # microsoft/onnxruntime#19710, issue description; microsoft/onnxruntime#6793, issue description
    "ort-no-kernel-for-node": (
        "onnxruntime.capi.onnxruntime_pybind11_state.NotImplemented: [ONNXRuntimeError] : 9 : NOT_IMPLEMENTED : Could not find an implementation for Cos(7) node with name '/encoder/Cos'",
        "NotImplemented: [ONNXRuntimeError] : 9 : NOT_IMPLEMENTED : Could not find an implementation for the node Relu(1)",
    ),
    # billwuhao/ComfyUI_StepAudioTTS#28, issue description; Geekgineer/YOLOs-CPP#45, issue description
    "ort-memcpy-nodes-added-notice": (
        "2025-05-07 09:14:14.906816010 [W:onnxruntime:, transformer_memcpy.cc:83 ApplyImpl] 10 Memcpy nodes are added to the graph main_graph for CUDAExecutionProvider. It might have negative impact on performance (including unable to run CUDA graph). Set session_options.log_severity_level=1 to see the detail logs before this message.",
        "2025-07-01 14:55:30.4464910 [W:onnxruntime:, transformer_memcpy.cc:74 onnxruntime::MemcpyTransformer::ApplyImpl] 4 Memcpy nodes are added to the graph main_graph for CUDAExecutionProvider. It might have negative impact on performance (including unable to run CUDA graph). Set session_options.log_severity_level=1 to see the detail logs before this message.",
    ),
}


# (line, signature id, facts the named groups must hold, code after code_when)
FACTS: list[tuple[str, str, dict[str, str], str]] = [
    (
        SAMPLES["dlopen-failed"][0],
        "dlopen-failed",
        {
            "library": "libcudart.so.11.0",
            "dlerror": "libcudart.so.11.0: cannot open shared object file: No such file or directory",
        },
        "cuda-library-missing",
    ),
    (
        SAMPLES["dlopen-failed"][1],
        "dlopen-failed",
        {
            "library": "libcudart.so.11.0",
            "ld_library_path": "/usr/local/lib/python3.10/dist-packages/cv2/../../lib64:/usr/lib64-nvidia",
        },
        "cuda-library-missing",
    ),
    (SAMPLES["dlopen-failed"][2], "dlopen-failed", {"library": "libcuda.so.1"}, "driver-missing"),
    (
        SAMPLES["dlopen-failed"][3],
        "dlopen-failed",
        {"library": "cudart64_110.dll", "dlerror": "cudart64_110.dll not found"},
        "cuda-library-missing",
    ),
    (
        SAMPLES["dlopen-failed"][4],
        "dlopen-failed",
        {"library": "libnvinfer.so.7"},
        "benign-warning",
    ),
    (
        SAMPLES["dlopen-failed-tf1"][0],
        "dlopen-failed-tf1",
        {"library": "nvcuda.dll"},
        "driver-missing",
    ),
    (
        SAMPLES["dlopen-failed-tf1"][1],
        "dlopen-failed-tf1",
        {"library": "libcudnn.so"},
        "cudnn-missing",
    ),
    (
        SAMPLES["import-error-missing-library"][0],
        "import-error-missing-library",
        {"library": "libcublas.so.10.0"},
        "cuda-library-missing",
    ),
    (
        SAMPLES["msvc-runtime-missing"][0],
        "msvc-runtime-missing",
        {"library": "msvcp140_1.dll"},
        "library-dependency-missing",
    ),
    (
        SAMPLES["tf1-windows-dll-missing"][0],
        "tf1-windows-dll-missing",
        {"library": "cudart64_90.dll"},
        "cuda-library-missing",
    ),
    (SAMPLES["python-not-64-bit"][0], "python-not-64-bit", {"bits": "32"}, "python-unsupported"),
    (
        SAMPLES["cudnn-library-load-failed-windows"][0],
        "cudnn-library-load-failed-windows",
        {"library": "cudnn_cnn_infer64_8.dll", "code": "193"},
        "library-wrong-architecture",
    ),
    (
        SAMPLES["cudnn-library-load-failed-windows"][1],
        "cudnn-library-load-failed-windows",
        {"library": "cudnn_cnn_infer64_8.dll", "code": "126"},
        "cudnn-sublibrary-missing",
    ),
    (
        SAMPLES["cudnn-library-load-failed-windows"][2],
        "cudnn-library-load-failed-windows",
        {"library": "zlibwapi.dll", "code": "193"},
        "library-wrong-architecture",
    ),
    (
        SAMPLES["cudnn-library-load-failed-linux"][0],
        "cudnn-library-load-failed-linux",
        {
            "library": "libcudnn_cnn_infer.so.8",
            "dlerror": "libcuda.so: cannot open shared object file: No such file or directory",
        },
        "library-dependency-missing",
    ),
    (
        SAMPLES["cudnn-library-path-hint"][0],
        "cudnn-library-path-hint",
        {"library": "cudnn_cnn_infer64_8.dll"},
        "cudnn-sublibrary-missing",
    ),
    (
        SAMPLES["cudnn-runtime-compiled-mismatch"][0],
        "cudnn-runtime-compiled-mismatch",
        {"runtime": "8.0.5", "compiled": "8.1.0"},
        "cudnn-version-mismatch",
    ),
    (
        SAMPLES["cudnn-runtime-compiled-mismatch"][1],
        "cudnn-runtime-compiled-mismatch",
        {"runtime": "7.5.0", "compiled": "7.6.5"},
        "cudnn-version-mismatch",
    ),
    (
        SAMPLES["cudnn-runtime-compiled-mismatch"][2],
        "cudnn-runtime-compiled-mismatch",
        {"runtime": "9.1.0", "compiled": "9.3.0"},
        "cudnn-version-mismatch",
    ),
    (
        SAMPLES["cudnn-runtime-compiled-mismatch-encoded"][0],
        "cudnn-runtime-compiled-mismatch-encoded",
        {
            "runtime": "7101",
            "runtime_compat": "7100",
            "compiled": "7004",
            "compiled_compat": "7000",
        },
        "cudnn-version-mismatch",
    ),
    (
        SAMPLES["cudnn-handle-failed"][0],
        "cudnn-handle-failed",
        {"status": "CUDNN_STATUS_INTERNAL_ERROR"},
        # Most often GPU memory already taken (the corpus's threads fixed it with allow_growth).
        "gpu-out-of-memory",
    ),
    (
        SAMPLES["cudnn-handle-failed"][1],
        "cudnn-handle-failed",
        {"status": "CUDNN_STATUS_ALLOC_FAILED"},
        "gpu-out-of-memory",
    ),
    (
        SAMPLES["possibly-insufficient-driver"][0],
        "possibly-insufficient-driver",
        {"driver": "418.67.0"},
        "driver-too-old",
    ),
    (
        SAMPLES["cudnn-loaded-version"][0],
        "cudnn-loaded-version",
        {"cudnn": "8900"},
        "benign-warning",
    ),
    (
        SAMPLES["plugin-factory-already-registered"][0],
        "plugin-factory-already-registered",
        {"plugin": "cuDNN"},
        "benign-warning",
    ),
    (
        SAMPLES["cuinit-failed"][0],
        "cuinit-failed",
        {"error": "UNKNOWN ERROR (303)", "code": "303"},
        "driver-missing",
    ),
    (
        SAMPLES["cuinit-failed"][1],
        "cuinit-failed",
        {"error": "UNKNOWN ERROR (100)", "code": "100"},
        "no-gpu",
    ),
    (SAMPLES["cuinit-failed"][2], "cuinit-failed", {"error": "CUDA_ERROR_NO_DEVICE"}, "no-gpu"),
    (
        SAMPLES["kernel-driver-not-running"][0],
        "kernel-driver-not-running",
        {"host": "<hostname>"},
        "driver-missing",
    ),
    (
        SAMPLES["kernel-dso-version-mismatch"][0],
        "kernel-dso-version-mismatch",
        {"kernel": "460.56.0", "dso": "470.57.2"},
        "driver-library-mismatch",
    ),
    (
        SAMPLES["driver-older-than-ptxas"][0],
        "driver-older-than-ptxas",
        {"driver_cuda": "12.4", "ptxas": "12.5.40"},
        "driver-too-old",
    ),
    (
        SAMPLES["driver-older-than-ptxas"][1],
        "driver-older-than-ptxas",
        {"driver_cuda": "12.4", "ptxas": "12.6.77"},
        "driver-too-old",
    ),
    (
        SAMPLES["gpu-ignored-compute-capability"][0],
        "gpu-ignored-compute-capability",
        {
            "capability": "3.0",
            "minimum": "3.5",
            "device": "device: 0, name: Quadro K2000M, pci bus id: 0000:01:00.0, compute capability: 3.0",
        },
        "compute-capability-unsupported",
    ),
    (
        SAMPLES["gpu-ignored-compute-capability"][1],
        "gpu-ignored-compute-capability",
        {"capability": "3.0", "minimum": "3.5"},
        "compute-capability-unsupported",
    ),
    (
        SAMPLES["gpu-ignored-core-count"][0],
        "gpu-ignored-core-count",
        {"cores": "2", "minimum": "8"},
        "usage-pitfall",
    ),
    (
        SAMPLES["no-kernel-binaries-for-capability"][0],
        "no-kernel-binaries-for-capability",
        {"capability": "12.0"},
        "compute-capability-unsupported",
    ),
    (
        SAMPLES["libdevice-not-found"][0],
        "libdevice-not-found",
        {"path": "./libdevice.10.bc"},
        "xla-toolchain-missing",
    ),
    (
        SAMPLES["libdevice-directory-missing"][0],
        "libdevice-directory-missing",
        {"path": "${CUDA_DIR}/nvvm/libdevice"},
        "xla-toolchain-missing",
    ),
    (SAMPLES["ptxas-too-old"][0], "ptxas-too-old", {"ptxas": "10.2.89"}, "xla-toolchain-missing"),
    (
        SAMPLES["cuda-out-of-memory"][0],
        "cuda-out-of-memory",
        {"size": "15.00G", "bytes": "16104454912"},
        "gpu-out-of-memory",
    ),
    (
        SAMPLES["oom-allocating-tensor"][0],
        "oom-allocating-tensor",
        {
            "shape": "200,75,75,64",
            "dtype": "float",
            "device": "/job:localhost/replica:0/task:0/device:GPU:0",
            "allocator": "GPU_0_bfc",
        },
        "gpu-out-of-memory",
    ),
    (
        SAMPLES["allocator-out-of-memory"][0],
        "allocator-out-of-memory",
        {"allocator": "GPU_0_bfc", "size": "286.00MiB"},
        "gpu-out-of-memory",
    ),
    (
        SAMPLES["allocator-out-of-memory-not-a-failure"][0],
        "allocator-out-of-memory-not-a-failure",
        {"size": "2.55GiB"},
        "benign-warning",
    ),
]

# Lines written to take every code_when route (constructed from the sample wordings above by
# changing the library name, error code or status): (line, signature id, code).
ROUTES: list[tuple[str, str, str]] = [
    # robotology/robotology-superbuild#1702 (PyTorch's fbgemm.dll: two OpenMP packages), and a
    # DLL of no framework's
    (
        'OSError: [WinError 182] The operating system cannot run %1. Error loading "D:\\miniforge\\envs\\robsub\\Lib\\site-packages\\torch\\lib\\fbgemm.dll" or one of its dependencies.',
        "windows-invalid-ordinal",
        "framework-conflict",
    ),
    (
        'OSError: [WinError 182] The operating system cannot run %1. Error loading "C:\\tools\\plugin\\engine.dll" or one of its dependencies.',
        "windows-invalid-ordinal",
        "library-shadowed",
    ),
    # PaddlePaddle/PARL#179's form with 38, cudaErrorNoDevice before CUDA 10.1 (a no-device run)
    (
        "PaddleCheckError: cudaGetDeviceCount failed in paddle::platform::GetCUDADeviceCountImpl, error code : 38, Please see detail in https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__TYPES.html: no CUDA-capable device is detected at [/paddle/paddle/fluid/platform/gpu_info.cc:67]",
        "paddle-device-count-error",
        "no-gpu",
    ),
    # measured: nvcc's own words for a target the toolkit does not know (matrix nvcc-arch rows)
    (
        "nvcc fatal   : Unsupported gpu architecture 'compute_86'",
        "nvcc-unsupported-gpu-architecture",
        "compute-capability-unsupported",
    ),
    (
        "nvcc fatal   : Unsupported gpu architecture 'compute_30'",
        "nvcc-unsupported-gpu-architecture",
        "cuda-version-mismatch",
    ),
    (
        # deepspeedai/DeepSpeed#607, as the reporter typed it
        "nvcc fatal unsupported gpu architecture 'compute_86'",
        "nvcc-unsupported-gpu-architecture",
        "compute-capability-unsupported",
    ),
    (
        # pjreddie/darknet#2360, as the thread has it
        "nvcc fatal : Unsupported GPU architecture 'compute_30'",
        "nvcc-unsupported-gpu-architecture",
        "cuda-version-mismatch",
    ),
    # colmap/colmap#1797 (Windows' loader dialog), and the other DLLs it routes by name
    (
        "The code execution cannot proceed because cudart64_110.dll was not found. Reinstalling the program may fix this problem",
        "windows-dll-not-found-dialog",
        "cuda-library-missing",
    ),
    (
        "The program can't start because cudnn64_8.dll is missing from your computer. Try reinstalling the program to fix this problem.",
        "windows-dll-not-found-dialog",
        "cudnn-missing",
    ),
    (
        "The code execution cannot proceed because nvcuda.dll was not found. Reinstalling the program may fix this problem.",
        "windows-dll-not-found-dialog",
        "driver-missing",
    ),
    (
        "The code execution cannot proceed because VCRUNTIME140_1.dll was not found. Reinstalling the program may fix this problem.",
        "windows-dll-not-found-dialog",
        "library-dependency-missing",
    ),
    (
        "nvcc fatal   : Value 'sm_120' is not defined for option 'gpu-architecture'",
        "nvcc-gpu-architecture-value-unknown",
        "compute-capability-unsupported",
    ),
    (
        "nvcc fatal   : Value 'sm_35' is not defined for option 'gpu-architecture'",
        "nvcc-gpu-architecture-value-unknown",
        "cuda-version-mismatch",
    ),
    (
        "Could not load dynamic library 'libnvinfer_plugin.so.7'; dlerror: libnvinfer_plugin.so.7: cannot open shared object file: No such file or directory",
        "dlopen-failed",
        "benign-warning",
    ),
    (
        "Could not load dynamic library 'nvinfer.dll'; dlerror: nvinfer.dll not found",
        "dlopen-failed",
        "benign-warning",
    ),
    (
        "Could not load dynamic library 'libcupti.so.11.2'; dlerror: libcupti.so.11.2: cannot open shared object file: No such file or directory",
        "dlopen-failed",
        "benign-warning",
    ),
    (
        "Could not load dynamic library 'libcudnn.so.8'; dlerror: libcudnn.so.8: cannot open shared object file: No such file or directory",
        "dlopen-failed",
        "cudnn-missing",
    ),
    (
        "Could not load dynamic library 'cudnn64_8.dll'; dlerror: cudnn64_8.dll not found",
        "dlopen-failed",
        "cudnn-missing",
    ),
    (
        "Could not load dynamic library 'libcudnn_ops_infer.so.8'; dlerror: libcudnn_ops_infer.so.8: cannot open shared object file: No such file or directory",
        "dlopen-failed",
        "cudnn-sublibrary-missing",
    ),
    (
        "Could not load dynamic library 'nvcuda.dll'; dlerror: nvcuda.dll not found",
        "dlopen-failed",
        "driver-missing",
    ),
    (
        "Could not load dynamic library 'libcublasLt.so.11'; dlerror: libcublasLt.so.11: cannot open shared object file: No such file or directory",
        "dlopen-failed",
        "cuda-library-missing",
    ),
    (
        "I tensorflow/stream_executor/dso_loader.cc:142] Couldn't open CUDA library libcupti.so.9.0. LD_LIBRARY_PATH: /usr/local/cuda-9.0/lib64",
        "dlopen-failed-tf1",
        "benign-warning",
    ),
    (
        "I tensorflow/stream_executor/dso_loader.cc:99] Couldn't open CUDA library libcuda.so.1. LD_LIBRARY_PATH: /usr/local/cuda/lib64",
        "dlopen-failed-tf1",
        "driver-missing",
    ),
    (
        "I tensorflow/stream_executor/dso_loader.cc:99] Couldn't open CUDA library libcublas.so.8.0. LD_LIBRARY_PATH: /usr/local/cuda/lib64",
        "dlopen-failed-tf1",
        "cuda-library-missing",
    ),
    (
        "ImportError: libcudnn.so.7: cannot open shared object file: No such file or directory",
        "import-error-missing-library",
        "cudnn-missing",
    ),
    (
        "ImportError: libcuda.so.1: cannot open shared object file: No such file or directory",
        "import-error-missing-library",
        "driver-missing",
    ),
    (
        "OSError: libcudnn_ops_infer.so.8: cannot open shared object file: No such file or directory",
        "import-error-missing-library",
        "cudnn-sublibrary-missing",
    ),
    (
        "ImportError: Could not find 'cudnn64_7.dll'. TensorFlow requires that this DLL be installed in a directory that is named in your %PATH% environment variable.",
        "tf1-windows-dll-missing",
        "cudnn-missing",
    ),
    (
        "ImportError: Could not find 'nvcuda.dll'. TensorFlow requires that this DLL be installed in a directory that is named in your %PATH% environment variable.",
        "tf1-windows-dll-missing",
        "driver-missing",
    ),
    (
        "Could not load library cudnn_cnn_infer64_8.dll. Error code 127",
        "cudnn-library-load-failed-windows",
        "cudnn-version-mismatch",
    ),
    (
        "Could not load library cudnn_ops_infer64_8.dll. Error code 1455",
        "cudnn-library-load-failed-windows",
        "cudnn-sublibrary-missing",
    ),
    (
        "Could not load library libcudnn_cnn_infer.so.8. Error: /usr/lib/x86_64-linux-gnu/libcudnn_cnn_infer.so.8: undefined symbol: _ZN11nvrtcHelper4loadEb, version libcudnn_ops_infer.so.8",
        "cudnn-library-load-failed-linux",
        "cudnn-version-mismatch",
    ),
    (
        "Could not load library libcudnn_cnn_infer.so.8. Error: libcudnn_cnn_infer.so.8: cannot open shared object file: No such file or directory",
        "cudnn-library-load-failed-linux",
        "cudnn-sublibrary-missing",
    ),
    (
        "Could not load library libcudnn_cnn_infer.so.8. Error: libnvrtc.so: cannot open shared object file: No such file or directory",
        "cudnn-library-load-failed-linux",
        "cudnn-sublibrary-missing",
    ),
    (
        "Could not load library libcudnn_cnn_infer.so.8. Error: libnvrtc.so",
        "cudnn-library-load-failed-linux",
        "cudnn-sublibrary-missing",
    ),
    (
        "Could not create cudnn handle: CUDNN_STATUS_ARCH_MISMATCH",
        "cudnn-handle-failed",
        "compute-capability-unsupported",
    ),
    (
        "Could not create cudnn handle: CUDNN_STATUS_NOT_INITIALIZED",
        "cudnn-handle-failed",
        "cudnn-version-mismatch",
    ),
    ("failed call to cuInit: CUDA_ERROR_INSUFFICIENT_DRIVER", "cuinit-failed", "driver-too-old"),
    (
        "failed call to cuInit: CUDA_ERROR_SYSTEM_DRIVER_MISMATCH: system has unsupported display driver / cuda driver combination",
        "cuinit-failed",
        "driver-library-mismatch",
    ),
    (
        "failed call to cuInit: CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE: forward compatibility was attempted on non supported HW",
        "cuinit-failed",
        "driver-too-old",
    ),
    ("failed call to cuInit: CUDA_ERROR_UNKNOWN: unknown error", "cuinit-failed", "driver-missing"),
]

# Sample lines on which two signatures with different root-cause codes both match, on purpose.
# None today: a line names one cause. Add (line, frozenset of codes, why) when one is intended.
CONFLICT_EXCEPTIONS: dict[str, tuple[frozenset[str], str]] = {}


def _hits(line: str, signatures: tuple[Signature, ...] = SIGNATURES) -> list[LogHit]:
    """The hits of one sample: a line, or for a `follows` row its leader's line, then more."""
    leaders = tuple(BY_ID[s.follows] for s in signatures if s.follows)
    return list(match_lines(line.split("\n"), leaders + signatures))


def _hit(line: str, signature_id: str) -> LogHit:
    hits = [h for h in _hits(line) if h.signature.id == signature_id]
    assert hits, f"{signature_id} does not match {line!r}"
    return hits[0]


def _all_samples() -> list[tuple[str, str]]:
    return [(sid, line) for sid, lines in SAMPLES.items() for line in lines]


# --- the data, row by row ------------------------------------------------------------------


def test_the_data_file_says_when_to_review_it() -> None:
    head = (MATRIX / FILE).read_text(encoding="utf-8").split("schema =")[0]
    assert head.startswith("#")
    assert "Review" in head and "TensorFlow release" in head


def test_ids_are_unique_and_codes_known() -> None:
    assert len(BY_ID) == len(SIGNATURES)
    for signature in SIGNATURES:
        assert signature.code in CODES
        assert all(code in CODES for _, _, code in signature.code_when)


@functools.cache
def _public_log_lines() -> tuple[str, ...]:
    """Every line of the real public logs: tests/logs and the corpus (tests/corpus)."""
    files = sorted((TESTS / "logs").rglob("*.log")) + sorted((TESTS / "corpus").rglob("*.log"))
    files += sorted((TESTS / "corpus-holdout").rglob("*.log"))  # the first set, once measured
    return tuple(
        line
        for path in files
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines()
    )


def _real_lines(signature: Signature) -> tuple[str, ...]:
    """The verbatim lines a signature is checked on: its SAMPLES, else the public log lines it
    matches (a row written for the corpus is checked on the corpus's own lines)."""
    if signature.id in SAMPLES:
        return SAMPLES[signature.id]
    if signature.follows:
        return ()
    return tuple(line for line in _public_log_lines() if signature.pattern.search(line))[:5]


@pytest.mark.parametrize("signature", SIGNATURES, ids=lambda s: s.id)
def test_every_signature_matches_its_real_log_lines(signature: Signature) -> None:
    lines = _real_lines(signature)
    assert lines, f"add a verbatim log line for {signature.id} to SAMPLES or the corpus"
    for line in lines:
        hits = [h for h in _hits(line, (signature,)) if h.signature is signature]
        assert hits, f"{signature.id} does not match {line!r}"


@pytest.mark.parametrize("signature", SIGNATURES, ids=lambda s: s.id)
def test_every_signature_cites_a_source_and_reads_as_a_sentence(signature: Signature) -> None:
    assert signature.sources
    for line in _real_lines(signature):
        hit = _hit(line, signature.id)
        assert hit.message.endswith("."), hit.message
        assert hit.fix.strip()
        assert "{" not in hit.message.replace("${CUDA_DIR}", "")


def test_samples_name_only_known_signatures() -> None:
    assert set(SAMPLES) <= set(BY_ID), set(SAMPLES) - set(BY_ID)


def test_the_brief_list_of_messages_is_covered() -> None:
    wanted = {
        "dlopen-failed", "cannot-dlopen-gpu-libraries", "cudart-dlerror-hint",
        "cuda-drivers-not-found", "cudnn-runtime-compiled-mismatch",
        "cudnn-runtime-compiled-mismatch-encoded", "cudnn-handle-failed",
        "convolution-algorithm-failed", "dnn-library-not-found",
        "driver-insufficient-for-runtime", "cuinit-failed", "kernel-driver-not-running",
        "kernel-dso-version-mismatch", "gpu-ignored-compute-capability",
        "no-kernel-binaries-for-capability", "no-kernel-image", "libdevice-not-found",
        "ptxas-version-unknown", "ptxas-too-old", "driver-older-than-ptxas",
        "tensorrt-not-found", "plugin-factory-already-registered", "numa-node-negative",
        "cpu-instructions-notice", "cuda-runtime-unloadable",
        "cudnn-library-load-failed-windows", "zlibwapi-missing", "msvc-runtime-missing",
        "import-error-missing-library", "cuda-out-of-memory", "oom-allocating-tensor",
        "nvml-driver-library-mismatch", "nvidia-smi-no-driver", "invalid-ptx",
    }  # fmt: skip
    assert wanted <= set(BY_ID), wanted - set(BY_ID)


# --- facts and routing -----------------------------------------------------------------------


@pytest.mark.parametrize(("line", "signature_id", "facts", "code"), FACTS)
def test_named_groups_extract_the_facts(
    line: str, signature_id: str, facts: dict[str, str], code: str
) -> None:
    hit = _hit(line, signature_id)
    for key, value in facts.items():
        assert hit.groups.get(key) == value, (key, hit.groups)
    assert hit.code == code


@pytest.mark.parametrize(("line", "signature_id", "code"), ROUTES)
def test_code_when_routes(line: str, signature_id: str, code: str) -> None:
    assert _hit(line, signature_id).code == code


@pytest.mark.parametrize("signature", [s for s in SIGNATURES if s.code_when], ids=lambda s: s.id)
def test_every_code_when_route_is_taken_by_some_line(signature: Signature) -> None:
    lines = [line for sid, line in _all_samples() if sid == signature.id]
    lines += [
        line for line, sid, _ in ROUTES + [(f[0], f[1], f[3]) for f in FACTS] if sid == signature.id
    ]
    # A row written for the corpus may be routed by the corpus's own lines.
    lines += [line for line in _public_log_lines() if signature.pattern.search(clean_line(line))]
    codes = {_hit(clean_line(line), signature.id).code for line in lines}
    expected = {code for _, _, code in signature.code_when} | {signature.code}
    assert expected <= codes, f"{signature.id}: no test line routes to {expected - codes}"


def test_windows_seed_log_error_193_is_the_wrong_architecture() -> None:
    with SEED.open(encoding="utf-8", errors="replace") as handle:
        hits = list(match_lines(handle, SIGNATURES))
    wrong = [h for h in hits if h.code == "library-wrong-architecture"]
    assert [h.line for h in wrong] == [255]
    assert wrong[0].groups == {"library": "cudnn_cnn_infer64_8.dll", "code": "193"}
    assert wrong[0].root_cause and wrong[0].severity is Severity.ERROR


# --- benign lines ----------------------------------------------------------------------------


@pytest.mark.parametrize("signature", [s for s in SIGNATURES if s.benign], ids=lambda s: s.id)
def test_benign_lines_are_benign(signature: Signature) -> None:
    for line in _real_lines(signature):
        # (A hit another row on the line reads differently, Signature.replaces, is no reading.)
        for hit in without_replaced(_hits(line)):
            assert hit.benign, (line, hit.signature.id)
            assert hit.severity is Severity.INFO
            assert not hit.root_cause
            assert hit.code == "benign-warning"


def test_tensorrt_dlopen_is_routed_to_benign() -> None:
    hit = _hit(SAMPLES["dlopen-failed"][4], "dlopen-failed")
    assert hit.benign and not hit.root_cause and hit.severity is Severity.INFO


def test_tf221_cpu_import_log() -> None:
    # TF 2.21 no-GPU log (docs/facts.md section 8): import + first device use
    log = """\
WARNING: All log messages before absl::InitializeLog() is called are written to STDERR
I0000 00:00:1796003927.553652    7803 cudart_stub.cc:31] Could not find cuda drivers on your machine, GPU will not be used.
I0000 00:00:1796003927.626963    7803 cpu_feature_guard.cc:227] This TensorFlow binary is optimized to use available CPU instructions in performance-critical operations.
To enable the following instructions: AVX2 FMA, in other operations, rebuild TensorFlow with the appropriate compiler flags.
WARNING: All log messages before absl::InitializeLog() is called are written to STDERR
I0000 00:00:1796003931.756857    7803 cudart_stub.cc:31] Could not find cuda drivers on your machine, GPU will not be used.
E0000 00:00:1796003932.146744    7803 cuda_platform.cc:52] failed call to cuInit: INTERNAL: CUDA error: Failed call to cuInit: UNKNOWN ERROR (303)
"""
    hits = list(match_lines(io.StringIO(log), SIGNATURES))
    assert [(h.line, h.signature.id) for h in hits] == [
        (1, "absl-log-before-init"),
        (2, "cuda-drivers-not-found"),
        (3, "cpu-instructions-notice"),
        (4, "cpu-instructions-notice"),
        (5, "absl-log-before-init"),
        (6, "cuda-drivers-not-found"),
        (7, "cuinit-failed"),
    ]
    assert {h.code for h in hits if not h.benign} == {"cuda-library-missing", "driver-missing"}


# --- conflicts -------------------------------------------------------------------------------


@pytest.mark.parametrize(("signature_id", "line"), _all_samples())
def test_no_line_has_two_conflicting_root_causes(signature_id: str, line: str) -> None:
    hits = _hits(line)
    assert signature_id in {h.signature.id for h in hits}
    # (A row that `replaces` a code reads another row's hit of it on the same line as its own,
    # envcheck.explain.log_findings: one reading, no conflict.)
    replaced = {code for h in hits for code in h.signature.replaces}
    roots = frozenset(h.code for h in hits if h.root_cause and h.code not in replaced)
    if len(roots) > 1:
        assert line in CONFLICT_EXCEPTIONS, f"{line!r} has root causes {sorted(roots)}"
        assert roots == CONFLICT_EXCEPTIONS[line][0]


# --- templates -------------------------------------------------------------------------------


def test_messages_fill_groups_and_missing_groups_read_as_a_question_mark() -> None:
    hit = _hit(SAMPLES["cudnn-runtime-compiled-mismatch"][0], "cudnn-runtime-compiled-mismatch")
    assert "cuDNN 8.1.0 but loaded cuDNN 8.0.5" in hit.message
    assert "cuDNN 8.1.0" in hit.fix
    bare = LogHit(BY_ID["dlopen-failed"], "cuda-library-missing", 1, "x", {})
    assert bare.message == "TensorFlow could not load ?: ?."


def test_hit_to_finding() -> None:
    line = SAMPLES["cudnn-library-load-failed-windows"][0]
    finding = next(match_lines([line], SIGNATURES, first_line=255)).to_finding()
    assert finding.code == "library-wrong-architecture"
    assert finding.severity is Severity.ERROR
    assert finding.lines == (255,)
    assert finding.evidence == (line,)


# --- clean_line and input handling ---------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("\x1b[1;31mE0000 cuda_dnn.cc] boom\x1b[0m", "E0000 cuda_dnn.cc] boom"),
        ("\x1b[33mW\x1b[39m tensorflow] x\x1b[K", "W tensorflow] x"),
        ("\x1b]8;;https://example.org\x07link\x1b]8;;\x07", "link"),
        ("DNN library is not found.\r\n", "DNN library is not found."),
        ("DNN library is not found.\r", "DNN library is not found."),
        ("```DNN library is not found.", "DNN library is not found."),
        ("```", ""),
        ("  ```text", "text"),
        ("DNN library is not found.```", "DNN library is not found."),
        ("> DNN library is not found.", "DNN library is not found."),
        ("> > DNN library is not found.", "DNN library is not found."),
        (">", ""),
        ("> ```", ""),
        (">>> import tensorflow as tf", ">>> import tensorflow as tf"),
        ("    indented stays", "    indented stays"),
    ],
)
def test_clean_line(raw: str, clean: str) -> None:
    assert clean_line(raw) == clean


def test_decorated_lines_still_match() -> None:
    line = SAMPLES["cudnn-runtime-compiled-mismatch"][0]
    for raw in (f"\x1b[31m{line}\x1b[0m\r\n", f"> {line}", f"```{line}```", f"> ```{line}"):
        hit = _hit(raw, "cudnn-runtime-compiled-mismatch")
        assert hit.text == line
        assert hit.groups["runtime"] == "8.0.5"


def test_non_utf8_input_decoded_with_replace_still_matches() -> None:
    # a Windows log in cp1252: an umlaut in a PATH entry, and a stray 0xff byte
    raw = (
        b"W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load "
        b"dynamic library 'cudnn64_8.dll'; dlerror: cudnn64_8.dll not found; LD_LIBRARY_PATH: "
        b"C:\\Users\\J\xfcrgen\\cuda\xff\\bin\r\n"
        b"Could not load library cudnn_cnn_infer64_8.dll. Error code 193\xff\r\n"
    )
    stream = io.TextIOWrapper(io.BytesIO(raw), encoding="utf-8", errors="replace", newline="")
    hits = list(match_lines(stream, SIGNATURES))
    assert [(h.line, h.code) for h in hits] == [
        (1, "cudnn-missing"),
        (2, "library-wrong-architecture"),
    ]
    assert hits[0].groups["library"] == "cudnn64_8.dll"
    assert "\ufffd" in hits[0].groups["ld_library_path"]


def test_long_lines_with_repeated_prefixes_stay_linear() -> None:
    # A pasted log can hold one huge line (minified JSON, a 20,000-character RUNPATH): the
    # first half of every sample, repeated to 200 KB, must not make a pattern backtrack
    # quadratically (an unbounded `kernel version (.+?) does not match` took 1.7 s here).
    for signature_id, line in _all_samples():
        half = line[: max(8, len(line) // 2)] + " "
        start = time.perf_counter()
        list(match_lines([half * (200_000 // len(half))], SIGNATURES))
        assert time.perf_counter() - start < 1.0, signature_id


def test_first_line_numbers_hits() -> None:
    lines = ["nothing here", SAMPLES["dnn-library-not-found"][0]]
    assert [h.line for h in match_lines(lines, SIGNATURES, first_line=41)] == [42]


def test_streaming_200000_lines_from_a_generator() -> None:
    pulled = 0
    wanted = SAMPLES["cudnn-runtime-compiled-mismatch"][0]

    def log() -> Iterator[str]:
        nonlocal pulled
        for number in range(200_000):
            pulled += 1
            if number % 1000 == 0:
                yield wanted
            else:
                yield f"Epoch {number}: 28/28 - 1s 11ms/step - loss: 0.6231 - mae: 0.5745"

    hits = match_lines(log(), SIGNATURES)
    first = next(hits)
    assert first.line == 1 and pulled == 1  # one line pulled, not the whole log
    assert 1 + sum(1 for _ in hits) == 200
    assert pulled == 200_000


# --- strict loading ---------------------------------------------------------------------------


@pytest.fixture
def data_copy(tmp_path: Path) -> Path:
    for name in FILES:
        shutil.copy(MATRIX / name, tmp_path / name)
    return tmp_path


def _edit(directory: Path, old: str, new: str) -> None:
    path = directory / FILE
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, new), encoding="utf-8")


def test_a_copied_data_file_loads(data_copy: Path) -> None:
    assert [s.id for s in load_signatures(data_copy)] == [s.id for s in SIGNATURES]


@pytest.mark.parametrize(
    ("old", "new", "error"),
    [
        (
            "pattern = 'DNN library is not found'",
            "pattern = 'DNN library (is not found'",
            r"dnn-library-not-found.*'pattern'.*invalid regular expression",
        ),
        (
            "  match = '^193$'",
            "  match = '^193($'",
            r"cudnn-library-load-failed-windows.*code_when #1.*'match'.*invalid regular",
        ),
        (
            "pattern = 'DNN library is not found'",
            "pattern = '(?:DNN library is not found)?'",
            r"dnn-library-not-found.*matches an empty line",
        ),
        (
            'id = "dnn-library-not-found"',
            'id = "DNN_library"',
            r"'id'.*not kebab-case",
        ),
        (
            'id = "dnn-library-not-found"',
            'id = "dnn-init-failed"',
            r"duplicate id 'dnn-init-failed'",
        ),
        (
            'message = "TensorFlow has no cuDNN loaded, so convolutions on the GPU fail."',
            'message = "TensorFlow has no {cudnn} loaded."',
            r"dnn-library-not-found.*'message'.*\{cudnn\} is not a named group",
        ),
        (
            'message = "TensorFlow has no cuDNN loaded, so convolutions on the GPU fail."',
            'message = "TensorFlow has no cuDNN loaded {."',
            r"dnn-library-not-found.*'message'.*not a valid format template",
        ),
        (
            'id = "dnn-library-not-found"\n',
            'id = "dnn-library-not-found"\ncolour = "red"\n',
            r"dnn-library-not-found.*unknown field\(s\) colour",
        ),
        (
            'code = "cudnn-version-mismatch"\nseverity = "error"\nmessage = "TensorFlow has no cuDNN',
            'code = "cudnn-gone"\nseverity = "error"\nmessage = "TensorFlow has no cuDNN',
            r"dnn-library-not-found.*unknown finding code 'cudnn-gone'",
        ),
        (
            'source = ["tf-stream-executor-pimpl"]',
            'source = ["nowhere"]',
            r"dnn-library-not-found.*unknown source id\(s\) nowhere",
        ),
        (
            'id = "dnn-library-not-found"\n',
            'id = "dnn-library-not-found"\nbenign = true\n',
            r"dnn-library-not-found.*benign = true goes with code benign-warning",
        ),
        (
            "  group = \"status\"\n  match = 'ALLOC_FAILED'",
            "  group = \"state\"\n  match = 'ALLOC_FAILED'",
            r"cudnn-handle-failed.*'group'.*'state' is not a named group",
        ),
        (
            'severity = "error"\nmessage = "TensorFlow has no cuDNN',
            'severity = "fatal"\nmessage = "TensorFlow has no cuDNN',
            r"dnn-library-not-found.*'severity'.*'fatal'",
        ),
        ("schema = 1", "schema = 2", r"schema must be 1"),
        ("schema = 1\n", "schema = 1\nother = 1\n", r"unknown top-level key\(s\) other"),
        (
            'id = "dnn-library-not-found"\n',
            'id = "dnn-library-not-found"\nwith_leader = true\n',
            r"dnn-library-not-found: field 'with_leader': only a row that follows another",
        ),
        (
            '  # under WSL 2 the driver is Windows\', never one to install in Linux.\n  [[signature.if_unknown]]\n  facts = ["driver"]',
            '  # under WSL 2 the driver is Windows\', never one to install in Linux.\n  [[signature.if_unknown]]\n  facts = ["kernel"]',
            r"container-cli-driver-library-not-found\) if_unknown #1.*'facts'.*'kernel' is not one of",
        ),
        (
            '  # under WSL 2 the driver is Windows\', never one to install in Linux.\n  [[signature.if_unknown]]\n  facts = ["driver"]',
            "  # under WSL 2 the driver is Windows', never one to install in Linux.\n  [[signature.if_unknown]]\n  facts = []",
            r"container-cli-driver-library-not-found\) if_unknown #1.*'facts'.*name at least one fact",
        ),
        (
            '  # under WSL 2 the driver is Windows\', never one to install in Linux.\n  [[signature.if_unknown]]\n  facts = ["driver"]\n  not_on = ["wsl"]',
            '  # under WSL 2 the driver is Windows\', never one to install in Linux.\n  [[signature.if_unknown]]\n  facts = ["driver"]\n  not_on = ["solaris"]',
            r"container-cli-driver-library-not-found\) if_unknown #1.*'not_on'.*'solaris' is not one of",
        ),
        (
            '  # under WSL 2 the driver is Windows\', never one to install in Linux.\n  [[signature.if_unknown]]\n  facts = ["driver"]\n  not_on = ["wsl"]\n  code = "driver-missing"',
            '  # under WSL 2 the driver is Windows\', never one to install in Linux.\n  [[signature.if_unknown]]\n  facts = ["driver"]\n  not_on = ["wsl"]\n  code = "driver-gone"',
            r"container-cli-driver-library-not-found\) if_unknown #1.*unknown finding code 'driver-gone'",
        ),
        (
            '  # under WSL 2 the driver is Windows\', never one to install in Linux.\n  [[signature.if_unknown]]\n  facts = ["driver"]\n  not_on = ["wsl"]\n  code = "driver-missing"',
            '  # under WSL 2 the driver is Windows\', never one to install in Linux.\n  [[signature.if_unknown]]\n  facts = ["driver"]\n  not_on = ["wsl"]\n  code = "container-gpu-unavailable"',
            r"container-cli-driver-library-not-found\) if_unknown #1.*'container-gpu-unavailable' is the row's own code",
        ),
    ],
)
def test_bad_rows_are_refused_naming_the_signature(
    data_copy: Path, old: str, new: str, error: str
) -> None:
    _edit(data_copy, old, new)
    with pytest.raises(MatrixDataError, match=error):
        load_signatures(data_copy)


def test_missing_and_unreadable_files_are_matrix_data_errors(tmp_path: Path) -> None:
    with pytest.raises(MatrixDataError, match="file is missing"):
        load_signatures(tmp_path)
    (tmp_path / FILE).write_text("schema = [", encoding="utf-8")
    with pytest.raises(MatrixDataError, match="cannot be read as TOML"):
        load_signatures(tmp_path)


def test_a_windows_error_number_leaves_the_dll_to_its_own_row() -> None:
    # PyTorch's "Error loading ... or one of its dependencies" after [WinError 127] is a
    # missing procedure (another version of a DLL), not a missing dependency: the row for the
    # message alone must stay silent there and leave the line to the row for its number.
    line = (
        "OSError: [WinError 127] The specified procedure could not be found. Error loading "
        '"C:\\Python310\\lib\\site-packages\\torch\\lib\\cudnn_cnn_infer64_8.dll" or one of its '
        "dependencies."
    )
    assert not BY_ID["windows-dll-error-loading"].pattern.search(line)
    assert BY_ID["windows-procedure-not-found"].pattern.search(line)
    alone = line.split("found. ", 1)[1]
    assert BY_ID["windows-dll-error-loading"].pattern.search(alone)


def test_flash_attn_on_windows_is_the_torch_it_was_built_for_not_a_missing_dll() -> None:
    # With Windows' reason on the line, the generic error-126 row reads it too; the row that
    # knows the module speaks for the line alone (replaces).
    line = (
        "ImportError: DLL load failed while importing flash_attn_2_cuda: "
        "The specified module could not be found."
    )
    hits = without_replaced(list(match_lines([line], SIGNATURES)))
    assert {h.code for h in hits} == {"framework-conflict"}


def test_a_cudnn_symbol_with_its_version_is_left_to_the_older_library_row() -> None:
    # "undefined symbol: X, version libcudnn.so.8" names the library that lacks it: the row for
    # an older copy of a library found first reads it, and the cuDNN row stays silent.
    line = (
        "ImportError: /env/lib/python3.10/site-packages/torch/lib/libtorch_cuda.so: "
        "undefined symbol: cudnnCreate, version libcudnn.so.8"
    )
    hits = without_replaced(list(match_lines([line], SIGNATURES)))
    assert "cudnn-symbol-missing" not in {h.signature.id for h in hits}
    assert {h.code for h in hits} == {"library-shadowed"}


def test_patterns_do_not_depend_on_source_paths() -> None:
    # §7: file prefixes and line numbers move with TF refactors; match the message text only.
    for signature in SIGNATURES:
        assert not re.search(r"\.cc:\d|stream_executor/|external/", signature.pattern.pattern)


def test_a_program_error_a_row_names_is_a_cause_of_its_own() -> None:
    # An exception the program raised (a shape mismatch, a traced value handed to NumPy) is a
    # second thing to fix beside any environment problem, never evidence of it: folded under
    # "No GPU/TPU found", JAX's ConcretizationTypeError vanished from holdout-7's answer. Only the
    # status codes generated from matrix/error_codes.toml (CUDNN_STATUS_BAD_PARAM after a failed
    # handle) can follow from another failure.
    program_errors = [s for s in SIGNATURES if s.code == "program-error"]
    assert len(program_errors) > 30
    assert [s.id for s in program_errors if not s.root_cause] == []


def test_the_signature_files_share_one_table_of_sources(data_copy: Path) -> None:
    # A row cites a source written in another signature file (macos-no-cuda, once written in
    # both), and a source id written twice is refused: a citation lives in one place.
    general = (data_copy / FILE).read_text(encoding="utf-8")
    cited_elsewhere = [
        s for s in SIGNATURES if "macos-no-cuda" in s.sources and s.id not in general
    ]
    assert cited_elsewhere  # rows of another file cite the general file's source
    line = next(line for line in general.splitlines() if line.startswith("macos-no-cuda = "))
    other = next(name for name in FILES if name != FILE)
    text = (data_copy / other).read_text(encoding="utf-8")
    (data_copy / other).write_text(text.replace("[sources]\n", f"[sources]\n{line}\n", 1))
    with pytest.raises(MatrixDataError, match="'macos-no-cuda' is also in"):
        load_signatures(data_copy)


def test_framework_rows_cite_from_the_same_shared_table(data_copy: Path) -> None:
    # The [[framework]] rows of the frameworks file see the sources the [[signature]] rows of
    # that file see, the general file's included: one table, not one per kind of row.
    other = next(name for name in FILES if name != FILE)
    text = (data_copy / other).read_text(encoding="utf-8")
    old = 'id = "tensorflow"\nframework = "TensorFlow"\n'
    assert text.count(old) == 1
    start = text.index(old)
    line = 'source = ["install-tensorflow"]\n'
    at = text.index(line, start)
    cited = (
        text[:at] + 'source = ["install-tensorflow", "macos-no-cuda"]\n' + text[at + len(line) :]
    )
    (data_copy / other).write_text(cited, encoding="utf-8")
    assert load_log_frameworks(data_copy)["tensorflow"].sources == (
        "install-tensorflow",
        "macos-no-cuda",
    )


def test_every_row_tried_on_every_line_has_a_trigger() -> None:
    # A row without a literal that every line it matches must contain (a word of four letters
    # or more) makes explain read every line of every log closely: the trigger scan and the
    # passing over of repeated runs are then off (envcheck.explain.explanation.scan_triggers).
    from envcheck.explain.triggers import signature_triggers  # noqa: PLC0415

    untriggered = [s.id for s in SIGNATURES if not s.follows and signature_triggers(s) is None]
    assert not untriggered, untriggered


def test_a_package_frame_of_a_run_time_error_is_not_a_syntax_error() -> None:
    # Every frame of a run-time traceback names its function; only a SyntaxError's place is a
    # bare "line N".
    pattern = BY_ID["python-package-syntax-newer-than-interpreter"].pattern
    frame = '  File "/usr/local/lib/python2.7/dist-packages/cupy/__init__.py", line 47, in <module>'
    assert not pattern.search(frame)
    own = '  File "/home/me/project/train.py", line 12'
    assert not pattern.search(own)  # the program's own code: its own syntax, not a package's
