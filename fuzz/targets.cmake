# The fuzz targets, shared by fuzz/CMakeLists.txt (which builds them) and the root
# CMakeLists.txt (which runs each as a test): fuzz/<name>.cpp, seeds in fuzz/corpus/<name>/.
set(KFTRAIN_FUZZ_TARGETS
  fuzz_job_file         # job file + --set overrides, loaded, validated, rendered
  fuzz_template         # a job template rendered with an example job
  fuzz_kube_json        # kubectl -o json of jobs, TrainJobs, pods and events
  fuzz_experiment       # a Katib Experiment and its Trials
  fuzz_image_data       # IDX (MNIST) and CIFAR-10 files, raw and gzipped
  fuzz_checkpoint_frame # the checkpoint frame: magic, version, CRC-32, length, footer
  fuzz_tar_stream       # the tar stream data get reads from a claim
  fuzz_code_folder      # a code folder's ignore file, patterns, paths and ConfigMap keys
  fuzz_quantity         # a Kubernetes quantity read, and written back
)
