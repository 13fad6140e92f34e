"""Text banks for the demo simulator: realistic questions, answers, instructions, chats and articles."""
