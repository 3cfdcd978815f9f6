"""The learning layer: Task, LearningEnv, the trainer, evaluation, preview and the Gymnasium adapters."""
