# gpu: the GPU devices present (NVIDIA, AMD, render nodes) to read, write and ioctl; the sysfs the runtimes read
#
# gpu: compute on the GPU (CUDA, ROCm, Vulkan and OpenCL through render
# nodes). Only the devices that exist on this machine are granted: NVIDIA's
# control, unified-memory and per-GPU nodes with its driver's /proc entries,
# AMD's kernel fusion driver, and the DRI render nodes. The DRI card nodes
# are never granted: they drive the displays (modesetting, other programs'
# screens). The sysfs directories the runtimes read to find the devices are
# granted read-only. Untested on real GPUs: see docs/profiles.md.
device /dev/nvidiactl
device /dev/nvidia[0-9]*
device /dev/nvidia-uvm*
device /dev/nvidia-modeset
device /dev/kfd
device /dev/dri/renderD*
read-present /proc/driver/nvidia
read-present /sys/class/drm
read-present /sys/bus/pci/devices
read-present /sys/devices/pci*
read-present /sys/module/nvidia
read-present /sys/module/amdgpu
read-present /sys/class/kfd
